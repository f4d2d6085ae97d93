// Package metrics owns garrison's Prometheus registry and the collectors that other
// packages feed through the small observer interfaces they declare. It is wired in
// internal/server.
//
// It exports GARM's families (shared/spec/streams-metrics.md §2.2) under GARM's names and
// labels, so GARM dashboards keep working, and garrison's own under the garrison_ prefix
// (§2.6): job queue times, instances per pool, provider call durations, forge budgets.
package metrics

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const namespace = "garrison"

// Metrics is the registry and the collectors garrison exports.
type Metrics struct {
	Registry *prometheus.Registry
	// snapshot holds the snapshot families (AddSnapshot): one series per instance and
	// per job, so a scrape that does not ask for them leaves them out (Handler).
	snapshot *prometheus.Registry

	providerCalls    *prometheus.CounterVec
	providerFailures *prometheus.CounterVec
	providerLatency  *prometheus.HistogramVec
	runnerOps        *prometheus.CounterVec // garm_runner_operations_total
	runnerErrors     *prometheus.CounterVec // garm_runner_errors_total
	forge            *forgeMetrics
	queue            *prometheus.HistogramVec
	// The two children of garrison_store_write_wait_seconds, resolved once.
	writeWaitUrgent, writeWaitOrdinary prometheus.Observer
}

// New builds a registry with the Go and process collectors and garrison's own.
func New() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry(), snapshot: prometheus.NewRegistry(), forge: newForgeMetrics()}
	m.providerCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "provider", Name: "calls_total",
		Help: "Provider executable calls, by provider and command.",
	}, []string{"provider", "command"})
	m.providerFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "provider", Name: "failures_total",
		Help: "Provider executable calls that failed, by provider and command.",
	}, []string{"provider", "command"})
	m.providerLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "provider", Name: "call_duration_seconds",
		Help:    "Duration of provider executable calls, by provider and command.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
	}, []string{"provider", "command"})
	m.runnerOps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "garm_runner_operations_total", Help: "Total number of instance operation attempts.",
	}, []string{"operation", "provider"})
	m.runnerErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "garm_runner_errors_total", Help: "Total number of failed instance operation attempts.",
	}, []string{"operation", "provider"})
	m.queue = newQueueHistogram()
	writeWait := newWriteWait()
	m.writeWaitUrgent = writeWait.WithLabelValues(writerUrgent)
	m.writeWaitOrdinary = writeWait.WithLabelValues(writerOrdinary)
	m.Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.providerCalls, m.providerFailures, m.providerLatency, m.runnerOps, m.runnerErrors, m.queue, writeWait,
		newBuildInfo(),
	)
	m.forge.register(m.Registry)
	return m
}

// AddSnapshot registers GARM's snapshot families (and garrison's per-pool and open-job
// counts), read from the store at most once per o.Period when scraped.
func (m *Metrics) AddSnapshot(o SnapshotOptions) error {
	return m.snapshot.Register(garmCollector{s: newSnapshotter(o)})
}

// Handler serves the registry in the Prometheus text format. A scrape may ask for some
// families by name (name[]=F, repeated); one that names no snapshot family does not
// collect them: a scraper that follows a few gauges (the benchmark's first-pass gauges,
// once a second) costs nothing per runner and per job.
func (m *Metrics) Handler() http.Handler {
	all := promhttp.HandlerFor(prometheus.Gatherers{m.Registry, m.snapshot}, promhttp.HandlerOpts{Registry: m.Registry})
	core := promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		names := r.URL.Query()["name[]"]
		if len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return snapshotFamilies[n] }) {
			core.ServeHTTP(w, r)
			return
		}
		all.ServeHTTP(w, r)
	})
}

// ObserveProviderCall records one provider executable call, in garrison's families and in
// GARM's runner operation counters.
func (m *Metrics) ObserveProviderCall(provider, command string, d time.Duration, err error) {
	m.providerCalls.WithLabelValues(provider, command).Inc()
	m.providerLatency.WithLabelValues(provider, command).Observe(d.Seconds())
	m.runnerOps.WithLabelValues(command, provider).Inc()
	// The failure counters exist from the first call on, at 0, so error ratios read 0
	// rather than nothing.
	failures, errs := m.providerFailures.WithLabelValues(provider, command), m.runnerErrors.WithLabelValues(command, provider)
	if err != nil {
		failures.Inc()
		errs.Inc()
	}
}

// ObserveForgeCall counts one forge API call attempt (garm_github_operations_total) and
// its failure (garm_github_errors_total). scope is the entity type as GARM writes it
// (Repository, Organization, Enterprise) or "" for credential-level calls.
func (m *Metrics) ObserveForgeCall(operation, scope string, err error) {
	m.forge.ops.WithLabelValues(operation, scope).Inc()
	errs := m.forge.errors.WithLabelValues(operation, scope) // exists at 0 from the first call on
	if err != nil {
		errs.Inc()
	}
}

// ObserveRateLimit records a credential's forge API budget for one resource: in
// garrison_forge_rate_limit, garrison_forge_rate_limit_remaining, and, for the core
// budget, in GARM's garm_github_rate_limit_* families.
func (m *Metrics) ObserveForgeRateLimit(credID uint, credName, endpoint, resource string, rl garrison.RateLimit) {
	m.forge.observeRateLimit(CredentialRef{ID: credID, Name: credName, Endpoint: endpoint}, resource, rl)
}

// ForgetCredentials drops the budget series of deleted credentials (D-5).
func (m *Metrics) ForgetCredentials(credID uint, credName, endpoint string) {
	m.forge.forget(CredentialRef{ID: credID, Name: credName, Endpoint: endpoint})
}

// CredentialRef names forge credentials in the budget families.
type CredentialRef struct {
	ID       uint
	Name     string
	Endpoint string // the endpoint's name
}

func (c CredentialRef) id() string { return strconv.FormatUint(uint64(c.ID), 10) }

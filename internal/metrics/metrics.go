// Package metrics owns garrison's Prometheus registry and the collectors that other
// packages feed through the small observer interfaces they declare. It is wired in cmd/.
package metrics

import (
	"github.com/garrison-ci/garrison"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const namespace = "garrison"

// Metrics is the registry and the collectors garrison exports.
type Metrics struct {
	Registry *prometheus.Registry

	providerCalls    *prometheus.CounterVec
	providerFailures *prometheus.CounterVec
	providerLatency  *prometheus.HistogramVec
	rateLimit        *prometheus.GaugeVec
}

// New builds a registry with the Go and process collectors and garrison's own.
func New() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
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
	m.rateLimit = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace, Subsystem: "forge", Name: "rate_limit",
		Help: "Forge API budget per credential and resource; kind is limit, used, remaining or reset (unix seconds).",
	}, []string{"credentials", "resource", "kind"})
	m.Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.providerCalls, m.providerFailures, m.providerLatency, m.rateLimit,
	)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// ObserveProviderCall records one provider executable call.
func (m *Metrics) ObserveProviderCall(provider, command string, d time.Duration, err error) {
	m.providerCalls.WithLabelValues(provider, command).Inc()
	m.providerLatency.WithLabelValues(provider, command).Observe(d.Seconds())
	if err != nil {
		m.providerFailures.WithLabelValues(provider, command).Inc()
	}
}

// ObserveRateLimit records a credential's forge API budget for one resource.
func (m *Metrics) ObserveRateLimit(credentials, resource string, rl garrison.RateLimit) {
	m.rateLimit.WithLabelValues(credentials, resource, "limit").Set(float64(rl.Limit))
	m.rateLimit.WithLabelValues(credentials, resource, "used").Set(float64(rl.Used))
	m.rateLimit.WithLabelValues(credentials, resource, "remaining").Set(float64(rl.Remaining))
	m.rateLimit.WithLabelValues(credentials, resource, "reset").Set(float64(rl.Reset))
}

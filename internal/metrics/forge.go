package metrics

import (
	"sync"

	"github.com/garrison-ci/garrison"
	"github.com/prometheus/client_golang/prometheus"
)

// forgeMetrics are the forge API families: GARM's call counters and budgets, and
// garrison's budgets by resource.
type forgeMetrics struct {
	ops, errors *prometheus.CounterVec
	rateLimit   *prometheus.GaugeVec // garrison_forge_rate_limit{credentials, resource, kind}
	remaining   *prometheus.GaugeVec // garrison_forge_rate_limit_remaining{credentials, endpoint}
	garm        map[string]*prometheus.GaugeVec

	mu        sync.Mutex // guards resources
	resources map[uint]map[string]bool
}

// garmRateKinds are the suffixes of GARM's garm_github_rate_limit_* families.
var garmRateKinds = []struct{ suffix, help string }{
	{"limit", "The maximum number of requests allowed per hour for the forge API."},
	{"remaining", "The number of requests remaining in the current rate limit window."},
	{"used", "The number of requests used in the current rate limit window."},
	{"reset_timestamp", "Unix timestamp when the rate limit resets."},
}

func newForgeMetrics() *forgeMetrics {
	f := &forgeMetrics{garm: map[string]*prometheus.GaugeVec{}, resources: map[uint]map[string]bool{}}
	f.ops = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "garm_github_operations_total", Help: "Total number of forge API operation attempts (GitHub and Gitea).",
	}, []string{"operation", "scope"})
	f.errors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "garm_github_errors_total", Help: "Total number of failed forge API operation attempts (GitHub and Gitea).",
	}, []string{"operation", "scope"})
	f.rateLimit = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace, Subsystem: "forge", Name: "rate_limit",
		Help: "Forge API budget per credential and resource; kind is limit, used, remaining or reset (unix seconds).",
	}, []string{"credentials", "resource", "kind"})
	f.remaining = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace, Subsystem: "forge", Name: "rate_limit_remaining",
		Help: "Requests left in the core forge API budget of a credential.",
	}, []string{"credentials", "endpoint"})
	for _, k := range garmRateKinds {
		f.garm[k.suffix] = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "garm_github_rate_limit_" + k.suffix, Help: k.help,
		}, []string{"credential_name", "credential_id", "endpoint"})
	}
	return f
}

func (f *forgeMetrics) register(reg prometheus.Registerer) {
	reg.MustRegister(f.ops, f.errors, f.rateLimit, f.remaining)
	for _, k := range garmRateKinds {
		reg.MustRegister(f.garm[k.suffix])
	}
}

// isCore reports whether a resource is the core budget ("" when the forge names none).
func isCore(resource string) bool { return resource == "core" || resource == "" }

func (f *forgeMetrics) observeRateLimit(c CredentialRef, resource string, rl garrison.RateLimit) {
	f.mu.Lock()
	if f.resources[c.ID] == nil {
		f.resources[c.ID] = map[string]bool{}
	}
	f.resources[c.ID][resource] = true
	f.mu.Unlock()
	f.rateLimit.WithLabelValues(c.Name, resource, "limit").Set(float64(rl.Limit))
	f.rateLimit.WithLabelValues(c.Name, resource, "used").Set(float64(rl.Used))
	f.rateLimit.WithLabelValues(c.Name, resource, "remaining").Set(float64(rl.Remaining))
	f.rateLimit.WithLabelValues(c.Name, resource, "reset").Set(float64(rl.Reset))
	if !isCore(resource) {
		return
	}
	f.remaining.WithLabelValues(c.Name, c.Endpoint).Set(float64(rl.Remaining))
	lv := []string{c.Name, c.id(), c.Endpoint}
	f.garm["limit"].WithLabelValues(lv...).Set(float64(rl.Limit))
	f.garm["remaining"].WithLabelValues(lv...).Set(float64(rl.Remaining))
	f.garm["used"].WithLabelValues(lv...).Set(float64(rl.Used))
	f.garm["reset_timestamp"].WithLabelValues(lv...).Set(float64(rl.Reset))
}

// forget deletes every budget series of the credentials.
func (f *forgeMetrics) forget(c CredentialRef) {
	f.mu.Lock()
	res := f.resources[c.ID]
	delete(f.resources, c.ID)
	f.mu.Unlock()
	for r := range res {
		for _, kind := range []string{"limit", "used", "remaining", "reset"} {
			f.rateLimit.DeleteLabelValues(c.Name, r, kind)
		}
	}
	f.remaining.DeleteLabelValues(c.Name, c.Endpoint)
	for _, g := range f.garm {
		g.DeleteLabelValues(c.Name, c.id(), c.Endpoint)
	}
}

package server

import "github.com/garrison-ci/garrison/internal/metrics"

// addMetricsSnapshot registers GARM's snapshot families, read from the store at most once
// per [metrics] period.
func (a *Server) addMetricsSnapshot() error {
	o := metrics.SnapshotOptions{
		Source: a.store,
		Period: a.cfg.Metrics.Period,
		Logger: a.logger,
		Running: func(entityID string) bool {
			ok, _ := a.managers.Status(entityID)
			return ok
		},
	}
	for _, p := range a.providers {
		o.Providers = append(o.Providers, metrics.ProviderInfo{Name: p.Name(), Type: p.Type(), Description: p.Description()})
	}
	return a.metrics.AddSnapshot(o)
}

// addClaimMetrics registers the fencing and takeover counters of the backend, when it
// counts them (both SQL backends do).
func (a *Server) addClaimMetrics() error {
	c, ok := a.backend.(metrics.ClaimCounts)
	if !ok {
		return nil
	}
	return a.metrics.AddClaimCounts(c)
}

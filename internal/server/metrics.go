package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison/internal/metrics"
)

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
// counts them (both SQL backends do), and the claims this replica holds.
func (a *Server) addClaimMetrics() error {
	if err := a.metrics.AddLeasesHeld(a.leasesHeld); err != nil {
		return err
	}
	c, ok := a.backend.(metrics.ClaimCounts)
	if !ok {
		return nil
	}
	return a.metrics.AddClaimCounts(c)
}

// leasesHeld counts the claims this replica holds now, by kind: its leases and its
// scale-set sessions (nil when the store cannot be read).
func (a *Server) leasesHeld() map[string]int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	claims, err := a.store.ListClaims(ctx)
	if err != nil {
		a.logger.Warn("metrics: reading the claims", slog.Any("err", err))
		return nil
	}
	ctrl, err := a.store.Controller(ctx)
	if err != nil {
		return nil
	}
	owner, now := scaleSetOwner(ctrl.ID, a.replicaID), time.Now()
	held := map[string]int{}
	for _, c := range claims {
		if c.HeldAt(now) && (c.Holder == a.replicaID || c.Holder == owner) {
			held[c.Kind]++
		}
	}
	return held
}

package server

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/scaleset/actions"
)

// wireScaleSets makes the Actions-service clients and the scale-set listeners. The
// listeners hand the runners they create or retire to the reconciler's instance
// controller. Each process claims sessions under its own owner name,
// garm-<controller id>-<random>, so that replicas sharing a database tell their claims
// apart and a restarted process takes over its predecessor's sessions once their claims
// lapse.
func (a *Server) wireScaleSets(ctrl garrison.Controller) {
	a.actions = actions.New(actions.Options{Store: a.store, Logger: a.logger})
	a.scaleSets = scaleset.New(scaleset.Options{
		Store: a.store, Services: a.actions, Forge: a.actions, Owner: "garm-" + ctrl.ID + "-" + randomSuffix(),
		OnInstances: a.pools.NotifyInstances, Metrics: scaleset.NewMetrics(a.metrics.Registry),
		StrandedAfter: a.cfg.Reconcile.StrandedTimeout, Logger: a.logger,
	})
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

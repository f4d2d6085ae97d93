package server

import (
	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/scaleset/actions"
)

// wireScaleSets makes the Actions-service clients and the scale-set listeners. The
// listeners hand the runners they create or retire to the reconciler's instance
// controller. Each process claims sessions under its own owner name,
// garm-<controller id>-<replica id>, so that replicas sharing a database tell their
// claims apart (the claims list shows which replica holds a session), and a server
// restarted after a crash (same replica id) takes its predecessor's sessions back at once.
func (a *Server) wireScaleSets(ctrl garrison.Controller) {
	a.actions = actions.New(actions.Options{Store: a.store, Logger: a.logger})
	a.scaleSets = scaleset.New(scaleset.Options{
		Store: a.store, Services: a.actions, Forge: a.actions, Owner: scaleSetOwner(ctrl.ID, a.replicaID),
		OnInstances: a.pools.NotifyInstances, Metrics: scaleset.NewMetrics(a.metrics.Registry),
		StrandedAfter: a.cfg.Reconcile.StrandedTimeout, Logger: a.logger,
	})
}

// scaleSetOwner names a replica in scale-set session claims and as the forge session's
// owner.
func scaleSetOwner(controllerID, replicaID string) string {
	return "garm-" + controllerID + "-" + replicaID
}

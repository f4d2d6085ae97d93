package server

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/scaleset/actions"
)

// wireScaleSets makes the Actions-service clients and the scale-set listeners. The
// listeners hand the runners they create or retire to the reconciler's instance
// controller.
func (a *Server) wireScaleSets(ctrl garrison.Controller) {
	a.actions = actions.New(actions.Options{Store: a.store, Logger: a.logger})
	a.scaleSets = scaleset.New(scaleset.Options{
		Store: a.store, Services: a.actions, Owner: sessionOwner(ctrl.ID, leaseHolder(a.cfg.APIServer.Addr())),
		OnInstances: a.pools.NotifyInstances, Metrics: scaleset.NewMetrics(a.metrics.Registry),
		Logger: a.logger,
	})
}

// sessionOwner names this replica in scale-set session claims and as the sessions'
// owner on the Actions service: garm-<controller id>-<8 hex digits of the lease holder>.
// Replicas sharing a database have different holders, so they tell their claims apart;
// a restarted server has the same one, so it takes back at once the claims its
// predecessor held when it died (closing the sessions they name) instead of leaving its
// scale sets without a listener until the claims lapse.
func sessionOwner(controllerID, holder string) string {
	sum := sha256.Sum256([]byte(holder))
	return "garm-" + controllerID + "-" + hex.EncodeToString(sum[:4])
}

package forges

import (
	"context"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile"
	"github.com/garrison-ci/garrison/provider"
)

// ReconcileForges returns the hub as the reconciler's source of forges.
func (h *Hub) ReconcileForges() reconcile.Forges { return reconcileForges{hub: h} }

// reconcileForges serves the reconciler's view of the forges.
type reconcileForges struct{ hub *Hub }

// Forge returns the reconciler's view of e's forge.
func (f reconcileForges) Forge(ctx context.Context, e garrison.Entity) (reconcile.Forge, error) {
	c, err := f.hub.clientFor(ctx, e)
	if err != nil {
		return nil, err
	}
	return reconcileForge{hub: f.hub, c: c}, nil
}

// reconcileForge is one entity's forge as the reconciler uses it: the client's calls,
// each reported to the entity's status (Hub.observe).
type reconcileForge struct {
	hub *Hub
	c   Client
}

// CreateJITConfig registers a JIT runner; Gitea answers garrison.ErrJITUnsupported.
func (f reconcileForge) CreateJITConfig(ctx context.Context, e garrison.Entity, req garrison.JITRequest) (garrison.JITConfig, error) {
	jit, err := f.c.CreateJITConfig(ctx, e, req)
	f.hub.observe(e, credentialsCall, err) // a 404 may be the runner group's
	return jit, err
}

func (f reconcileForge) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return f.hub.RunnerDownloads(ctx, e)
}

func (f reconcileForge) ListRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error) {
	rs, err := f.c.ListRunners(ctx, e)
	f.hub.observe(e, entityCall, err)
	return rs, err
}

func (f reconcileForge) DeleteRunner(ctx context.Context, e garrison.Entity, id int64) error {
	err := f.c.DeleteRunner(ctx, e, id)
	f.hub.observe(e, credentialsCall, err)
	return err
}

package forges

import (
	"cmp"
	"context"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/reconcile"
	"github.com/garrison-ci/garrison/provider"
)

// ReconcileForges returns the hub as the reconciler's source of forges.
func (h *Hub) ReconcileForges() reconcile.Forges { return reconcileForges{hub: h} }

// reconcileForges adapts the forge hub to the reconciler's view of the forge.
type reconcileForges struct{ hub *Hub }

// Forge returns the reconciler's view of e's forge.
func (f reconcileForges) Forge(ctx context.Context, e garrison.Entity) (reconcile.Forge, error) {
	c, err := f.hub.clientsFor(ctx, e)
	if err != nil {
		return nil, err
	}
	return reconcileForge{hub: f.hub, c: c}, nil
}

// reconcileForge is one entity's forge as the reconciler uses it.
type reconcileForge struct {
	hub *Hub
	c   *credClients
}

// CreateJITConfig registers a JIT runner; Gitea runners register with tokens
// (garrison.ErrJITUnsupported).
func (f reconcileForge) CreateJITConfig(ctx context.Context, e garrison.Entity, req garrison.JITRequest) (garrison.JITConfig, error) {
	if f.c.gh == nil {
		return garrison.JITConfig{}, garrison.ErrJITUnsupported
	}
	jit, err := f.c.gh.CreateJITConfig(ctx, e, github.JITRequest{
		Name: req.Name, RunnerGroup: req.RunnerGroup, Labels: req.Labels, WorkFolder: cmp.Or(req.WorkFolder, "_work"),
	})
	f.hub.observe(e, credentialsCall, "GetEntityJITConfig", err) // a 404 may be the runner group's
	return garrison.JITConfig{RunnerID: jit.RunnerID, Files: jit.Files}, err
}

func (f reconcileForge) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return f.hub.RunnerDownloads(ctx, e)
}

func (f reconcileForge) ListRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error) {
	out, err := f.listRunners(ctx, e)
	f.hub.observe(e, entityCall, "ListEntityRunners", err)
	return out, err
}

func (f reconcileForge) listRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error) {
	var out []garrison.Runner
	if f.c.gt != nil {
		rs, err := f.c.gt.ListRunners(ctx, e)
		for _, r := range rs {
			out = append(out, garrison.Runner{ID: r.ID, Name: r.Name, Status: r.Status, Busy: r.Busy, Ephemeral: r.Ephemeral, Labels: r.Labels})
		}
		return out, err
	}
	rs, err := f.c.gh.ListRunners(ctx, e, "")
	for _, r := range rs {
		out = append(out, garrison.Runner{ID: r.ID, Name: r.Name, Status: r.Status, Busy: r.Busy, Ephemeral: r.Ephemeral, Labels: r.Labels})
	}
	return out, err
}

func (f reconcileForge) DeleteRunner(ctx context.Context, e garrison.Entity, id int64) error {
	var err error
	if f.c.gt != nil {
		err = f.c.gt.DeleteRunner(ctx, e, id)
	} else {
		err = f.c.gh.DeleteRunner(ctx, e, id)
	}
	f.hub.observe(e, credentialsCall, "RemoveEntityRunner", err)
	return err
}

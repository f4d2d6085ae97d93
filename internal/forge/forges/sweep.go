package forges

import (
	"context"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/sweep"
)

// SweepForge returns the missed-webhook sweep's view of an entity's forge: one value per
// credentials, so the sweep shares one budget across the entities of a credential.
func (h *Hub) SweepForge(ctx context.Context, e garrison.Entity) (sweep.Forge, error) {
	c, err := h.clientsFor(ctx, e)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.sweep == nil {
		if c.gt != nil {
			c.sweep = giteaSweep{c: c.gt, observe: h.observe}
		} else {
			c.sweep = &githubSweep{c: c.gh, hookURL: h.o.HookURL, observe: h.observe}
		}
	}
	return c.sweep, nil
}

// observeFunc records what a forge call says about its entity (Hub.observe).
type observeFunc func(e garrison.Entity, kind callKind, operation string, err error)

// githubSweep adapts the GitHub client to sweep.Forge and sweep.Redeliverer.
type githubSweep struct {
	c       *github.Client
	hookURL func(ctx context.Context) (string, error)
	observe observeFunc
}

func (f *githubSweep) QueuedJobs(ctx context.Context, e garrison.Entity) ([]garrison.Job, error) {
	if e.Type != garrison.Repository {
		return nil, nil // GitHub lists workflow runs per repository only
	}
	jobs, err := f.c.QueuedJobs(ctx, e.Owner, e.Name)
	f.observe(e, entityCall, "ListQueuedJobs", err)
	return jobs, err
}

func (f *githubSweep) Budget() (int, int, time.Time) {
	for _, r := range f.c.RateLimits() {
		if r.Resource == "core" {
			return r.Remaining, r.Limit, time.Unix(r.Reset, 0)
		}
	}
	return 0, 0, time.Time{}
}

func (f *githubSweep) InstalledHook(ctx context.Context, e garrison.Entity) (int64, error) {
	url, err := f.hookURL(ctx)
	if err != nil {
		return 0, err
	}
	if url == "" {
		return 0, garrison.ErrNotFound
	}
	hk, err := f.c.FindHook(ctx, e, url)
	f.observe(e, credentialsCall, "ListHooks", err)
	return hk.ID, err
}

func (f *githubSweep) ListHookDeliveries(ctx context.Context, e garrison.Entity, hookID int64, since time.Time) ([]sweep.Delivery, error) {
	ds, err := f.c.ListHookDeliveries(ctx, e, hookID, since)
	f.observe(e, credentialsCall, "ListHookDeliveries", err)
	out := make([]sweep.Delivery, len(ds))
	for i, d := range ds {
		out[i] = sweep.Delivery{ID: d.ID, GUID: d.GUID, DeliveredAt: d.DeliveredAt, Status: d.Status,
			StatusCode: d.StatusCode, Redelivery: d.Redelivery}
	}
	return out, err
}

func (f *githubSweep) Redeliver(ctx context.Context, e garrison.Entity, hookID, deliveryID int64) error {
	err := f.c.Redeliver(ctx, e, hookID, deliveryID)
	f.observe(e, credentialsCall, "RedeliverHookDelivery", err)
	return err
}

// giteaSweep adapts the Gitea client to sweep.Forge; Gitea reports no budget.
type giteaSweep struct {
	c       *gitea.Client
	observe observeFunc
}

func (f giteaSweep) QueuedJobs(ctx context.Context, e garrison.Entity) ([]garrison.Job, error) {
	jobs, err := f.c.QueuedJobs(ctx, e)
	f.observe(e, entityCall, "ListQueuedJobs", err)
	return jobs, err
}

func (f giteaSweep) Budget() (int, int, time.Time) { return 0, 0, time.Time{} }

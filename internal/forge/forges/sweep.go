package forges

import (
	"context"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/sweep"
)

// SweepForge returns the missed-webhook sweep's view of an entity's forge: one value per
// credentials, so the sweep shares one budget across the entities of a credential. A
// forge with a delivery API (GitHub) also serves sweep.Redeliverer.
func (h *Hub) SweepForge(ctx context.Context, e garrison.Entity) (sweep.Forge, error) {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.sweep == nil {
		base := &sweepForge{c: c.Client, observe: h.observe}
		c.sweep = base
		if d, ok := c.Client.(deliveryLister); ok {
			c.sweep = &redeliverForge{sweepForge: base, d: d, hookURL: h.o.HookURL}
		}
	}
	return c.sweep, nil
}

// observeFunc records what a forge call says about its entity (Hub.observe).
type observeFunc func(e garrison.Entity, kind callKind, err error)

// sweepForge serves sweep.Forge from a client.
type sweepForge struct {
	c       Client
	observe observeFunc
}

func (f *sweepForge) QueuedJobs(ctx context.Context, e garrison.Entity) ([]garrison.Job, error) {
	jobs, err := f.c.QueuedJobs(ctx, e)
	f.observe(e, entityCall, err)
	return jobs, err
}

// Budget is the credential's core budget; zero when the forge reports none.
func (f *sweepForge) Budget() (int, int, time.Time) {
	rl, ok := f.c.RateLimit()
	if !ok {
		return 0, 0, time.Time{}
	}
	return rl.Remaining, rl.Limit, time.Unix(rl.Reset, 0)
}

// redeliverForge adds sweep.Redeliverer for a forge with a delivery API.
type redeliverForge struct {
	*sweepForge
	d       deliveryLister
	hookURL func(ctx context.Context) (string, error)
}

func (f *redeliverForge) InstalledHook(ctx context.Context, e garrison.Entity) (int64, error) {
	url, err := f.hookURL(ctx)
	if err != nil {
		return 0, err
	}
	if url == "" {
		return 0, garrison.ErrNotFound
	}
	hk, err := f.c.FindHook(ctx, e, url)
	f.observe(e, credentialsCall, err)
	return hk.ID, err
}

func (f *redeliverForge) ListHookDeliveries(ctx context.Context, e garrison.Entity, hookID int64, since time.Time) ([]garrison.HookDelivery, error) {
	ds, err := f.d.ListHookDeliveries(ctx, e, hookID, since)
	f.observe(e, credentialsCall, err)
	return ds, err
}

func (f *redeliverForge) Redeliver(ctx context.Context, e garrison.Entity, hookID, deliveryID int64) error {
	err := f.d.Redeliver(ctx, e, hookID, deliveryID)
	f.observe(e, credentialsCall, err)
	return err
}

package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// Defaults of the sweep options.
const (
	DefaultSweepInterval   = 10 * time.Minute
	DefaultSweepStartDelay = time.Minute
	DefaultSweepJitter     = 0.2
)

// SweepFunc sweeps one entity for lost webhooks (internal/sweep). A
// *garrison.RateLimitError says when its credentials may call the forge again.
type SweepFunc func(ctx context.Context, e garrison.Entity) error

// sweepEntity is the sweeps controller's handler for one entity key: it sweeps the entity
// and asks for the next sweep after SweepInterval (± SweepJitter). With Leases it sweeps
// only while it holds the entity's sweep lease (sweep/<entity id>), which it keeps past
// its own next sweep (sweepClaimTTL): one replica sweeps an entity at a time. A deleted
// entity's key is dropped.
func (r *Reconciler) sweepEntity(ctx context.Context, id string) (workqueue.Result, error) {
	next := workqueue.Result{RequeueAfter: jitter(r.o.SweepInterval, r.o.SweepJitter)}
	e, err := r.o.Store.Entity(ctx, id)
	if errors.Is(err, garrison.ErrNotFound) {
		return workqueue.Result{}, nil
	}
	if err != nil {
		return workqueue.Result{}, fmt.Errorf("reconcile: read entity %s to sweep: %w", id, err)
	}
	if r.o.Leases != nil {
		f, held, err := r.o.Leases.Lease(ctx, store.SweepClaim(id), r.o.Holder, r.sweepClaimTTL())
		if err != nil || !held {
			return next, err
		}
		ctx = store.WithFence(ctx, f) // the sweep's ledger writes
	}
	bid, name := credentialsBudget(e)
	release, ok := r.budgets.take(bid, name, 0, r.sweepWaiter(id))
	if !ok {
		return workqueue.Result{}, nil // the budget hands the key back when a slot frees
	}
	err = r.o.Sweep(ctx, e)
	release()
	r.renewSweepClaim(ctx, e)
	var rl *garrison.RateLimitError
	switch {
	case ctx.Err() != nil:
		return workqueue.Result{}, nil
	case errors.As(err, &rl):
		return rateLimited(rl, r.o.Now()), nil
	case err != nil:
		r.log.Warn("reconcile: sweep failed", slog.String("entity", e.FullName()),
			slog.String("reconcile_id", workqueue.ReconcileID(ctx)), slog.Any("err", err))
	}
	return next, nil
}

// renewSweepClaim claims the entity again as its sweep ends: the next sweep is due an
// interval after this one ended, not after it started, and a sweep of a large entity
// waiting on its forge budget may take longer than the claim's quarter interval to spare.
func (r *Reconciler) renewSweepClaim(ctx context.Context, e garrison.Entity) {
	if r.o.Leases == nil || ctx.Err() != nil {
		return
	}
	if _, _, err := r.o.Leases.Lease(ctx, store.SweepClaim(e.ID), r.o.Holder, r.sweepClaimTTL()); err != nil {
		r.log.Warn("reconcile: renew the sweep claim", slog.String("entity", e.FullName()), slog.Any("err", err))
	}
}

// sweepClaimTTL is how long a sweep claims its entity: past the holder's next sweep, a
// jittered interval after this one ended at the latest, with a quarter of an interval to
// spare (the claim is taken as the sweep starts and taken again as it ends). Were it
// one interval, the holder's sweep due later than that would find the claim lapsed, and
// every other replica whose own timer fired meanwhile would sweep too: more sweeps, and
// forge calls, the more replicas there are. A holder that died is replaced within
// 1.25 + SweepJitter intervals.
func (r *Reconciler) sweepClaimTTL() time.Duration {
	return time.Duration(float64(r.o.SweepInterval) * (1.25 + r.o.SweepJitter))
}

// ensureSweep schedules the entity's first sweep at a random point within
// SweepStartDelay, unless its sweeps are scheduled already.
func (r *Reconciler) ensureSweep(entityID string) {
	if r.sweeps != nil && !r.sweeps.Has(entityID) && !r.budgets.isWaiting(r.sweepWaiter(entityID).id) {
		r.sweeps.AddAfter(entityID, time.Duration(rand.Int64N(int64(r.o.SweepStartDelay))))
	}
}

// rateLimited asks for a key to be held until the forge's limit resets, and a little
// more (so that a crowd of keys does not come back at the same instant).
func rateLimited(rl *garrison.RateLimitError, now time.Time) workqueue.Result {
	wait := max(rl.Until.Sub(now), time.Second)
	return workqueue.Result{RequeueAfter: wait + time.Duration(rand.Int64N(int64(time.Second+wait/10))), Hold: true}
}

// sweepWaiter is a sweep key waiting for a budget.
func (r *Reconciler) sweepWaiter(entityID string) waiter {
	return waiter{id: "sweeps/" + entityID, wake: func() { r.sweeps.Add(entityID) }}
}

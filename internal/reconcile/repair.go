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
	"github.com/garrison-ci/garrison/provider"
)

// defaultListingMargin is how long before a provider listing began a record must have
// last changed for the listing to judge it: more than the skew between the clocks that
// stamp rows (this process's, other replicas') and this process's clock.
const defaultListingMargin = time.Second

// repairPool is the repairs controller's handler for one pool key: the pool's three-way
// repair (repair), then another look after RepairInterval (±10%). With Leases, a pool
// another replica holds is that replica's to repair. A repair that changed a record of
// the pool asks for the pool to be reconciled.
func (r *Reconciler) repairPool(ctx context.Context, poolID string) (workqueue.Result, error) {
	next := workqueue.Result{RequeueAfter: jitter(r.o.RepairInterval, 0.1)}
	env, err := r.repairEnv(ctx, poolID)
	switch {
	case errors.Is(err, garrison.ErrNotFound) && env == nil:
		r.passes.done(poolID, stepRepaired)
		return workqueue.Result{}, nil // the pool is gone: its key too
	case errors.Is(err, garrison.ErrNotFound):
		r.passes.done(poolID, stepRepaired) // configuration: the pool reports it
		return next, nil
	case err != nil:
		return workqueue.Result{}, err
	}
	ctx, release, held, err := r.claim(ctx, poolID)
	defer release()
	if err != nil || !held {
		if err == nil {
			r.passes.done(poolID, stepRepaired) // another replica's
		}
		return next, err
	}
	env.waiter, env.rid = r.repairWaiter(poolID), workqueue.ReconcileID(ctx)
	changed, err := r.repair(ctx, env)
	if changed > 0 {
		r.pools.Add(poolID)
	}
	var rl *garrison.RateLimitError
	switch {
	case ctx.Err() != nil:
		return workqueue.Result{}, nil
	case errors.Is(err, errWaiting):
		return workqueue.Result{}, nil // the budget hands the key back when a slot frees
	case errors.As(err, &rl):
		next = r.poolRateLimited(env, rl) // the forge part is tried again after the reset
	case err != nil:
		r.log.Warn("reconcile: repair failed", env.attrs(slog.Any("err", err))...)
	}
	r.passes.done(poolID, stepRepaired)
	return next, nil
}

// repairHint is a pool's environment as the last resync read it.
type repairHint struct {
	env *poolEnv
	at  time.Time
}

// hintRepair keeps the environment the resync built for a pool, for the pool's next
// repair: the resync reads the whole store in a few queries, so a repair that follows it
// reads nothing more (the pool's rows it judges are read after its provider listing).
func (r *Reconciler) hintRepair(env *poolEnv) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hints[env.pool.ID] = repairHint{env: env, at: time.Now()}
}

// dropHints forgets the environments kept for repairs. A triage calls it before its own
// read: a hint is only used within ResyncInterval of its triage, that is until the next
// one, and the hints of every pool hold the whole read of the store; kept, two reads of a
// large store would be in memory while the next triage builds its own.
func (r *Reconciler) dropHints() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.hints)
}

// repairEnv returns what a repair of the pool acts on: the resync's read of it when that
// is younger than ResyncInterval, else a fresh read (errors as loadPool's).
func (r *Reconciler) repairEnv(ctx context.Context, poolID string) (*poolEnv, error) {
	r.mu.Lock()
	h, ok := r.hints[poolID]
	delete(r.hints, poolID)
	r.mu.Unlock()
	if ok && time.Since(h.at) < r.o.ResyncInterval {
		return h.env, nil
	}
	env, err := r.loadPool(ctx, poolID)
	if err != nil {
		return env, err
	}
	if env.instances, err = r.o.Store.ListInstances(ctx, store.InstanceFilter{EntityID: env.entity.ID}); err != nil {
		return nil, fmt.Errorf("reconcile: list instances: %w", err)
	}
	return env, nil
}

// errWaiting says a repair waits for a budget slot.
var errWaiting = errors.New("reconcile: waiting for a budget slot")

// ensureRepair schedules the pool's repair now unless it is scheduled already: a pool
// is repaired on its first look by this process, then every RepairInterval.
func (r *Reconciler) ensureRepair(poolID string) {
	if !r.repairs.Has(poolID) && !r.budgets.isWaiting(r.repairWaiter(poolID).id) {
		r.repairs.Add(poolID)
	}
}

// repairWaiter is a repair key waiting for a budget.
func (r *Reconciler) repairWaiter(poolID string) waiter {
	return waiter{id: "repairs/" + poolID, wake: func() { r.repairs.Add(poolID) }}
}

// jitter varies d by up to ±frac of it, at random.
func jitter(d time.Duration, frac float64) time.Duration {
	return time.Duration(float64(d) * (1 + frac*(2*rand.Float64()-1)))
}

// repair compares the store, the provider and the forge for one pool and removes the
// difference: provider instances with no record are deleted, records whose instance is
// gone are closed, creating instances left by a dead process are settled, and our forge
// runners with no instance are deregistered. It returns how many records it settled;
// errWaiting when a budget it needs is full.
func (r *Reconciler) repair(ctx context.Context, env *poolEnv) (int, error) {
	release, ok := r.takeSlot(env, budgetProvider)
	if !ok {
		return 0, errWaiting
	}
	settled, err := r.repairInstances(ctx, env)
	release()
	if err != nil {
		return settled, err
	}
	if release, ok = r.takeSlot(env, budgetCredentials); !ok {
		return settled, errWaiting
	}
	defer release()
	return settled, r.removeGhostRunners(ctx, env)
}

// repairInstances is the provider part of the repair.
func (r *Reconciler) repairInstances(ctx context.Context, env *poolEnv) (int, error) {
	busy := r.busyNames(env)
	// The provider is listed before the store: every instance it has was recorded
	// before it was created, so a missing record means the record is gone for good.
	// Records written since the listing began are not judged by it (see closeVanished).
	listedAt := time.Now().Add(-r.listingMargin) // the store stamps rows with the wall clock
	list, err := env.prov.ListInstances(ctx, provider.Target{PoolID: env.pool.ID, ExtraSpecs: env.pool.ExtraSpecs})
	if err != nil {
		return 0, fmt.Errorf("list provider instances: %w", err)
	}
	rows, err := r.o.Store.ListInstances(ctx, store.InstanceFilter{PoolID: env.pool.ID})
	if err != nil {
		return 0, fmt.Errorf("list instances: %w", err)
	}
	r.removeStrays(ctx, env, list, rows)
	return r.closeVanished(ctx, env, list, rows, busy, listedAt), nil
}

// busyNames snapshots the instances of the pool with a step queued or running.
func (r *Reconciler) busyNames(env *poolEnv) map[string]bool {
	out := map[string]bool{}
	for _, in := range env.instances {
		if in.PoolID == env.pool.ID && r.instanceBusy(in.Name) {
			out[in.Name] = true
		}
	}
	return out
}

// removeStrays deletes provider instances that have no record.
func (r *Reconciler) removeStrays(ctx context.Context, env *poolEnv, list []provider.ProviderInstance, rows []garrison.Instance) {
	known, knownIDs := map[string]bool{}, map[string]bool{}
	for _, in := range rows {
		known[in.Name] = in.Status != garrison.InstanceDeleted // history stands behind nothing
		if in.ProviderID != "" && in.Status != garrison.InstanceDeleted {
			knownIDs[in.ProviderID] = true // a provider may name the instance its own way
		}
	}
	for _, pi := range list {
		if known[pi.Name] || (pi.ProviderID != "" && knownIDs[pi.ProviderID]) {
			continue
		}
		t := provider.Target{PoolID: env.pool.ID, InstanceID: pi.ProviderID, ExtraSpecs: env.pool.ExtraSpecs}
		err := env.prov.DeleteInstance(ctx, t)
		r.log.Warn("repair: deleted a provider instance garrison has no record of",
			env.attrs(slog.String("instance", pi.Name), slog.String("provider_id", pi.ProviderID), slog.Any("err", err))...)
	}
}

// closeVanished settles records the provider contradicts: creating ones with no call in
// flight are resolved from the listing; live ones whose instance is gone are deleted. It
// returns how many it settled (or tried to).
func (r *Reconciler) closeVanished(ctx context.Context, env *poolEnv, list []provider.ProviderInstance, rows []garrison.Instance,
	busy map[string]bool, listedAt time.Time) int {
	settled := 0
	listed, listedIDs := map[string]bool{}, map[string]bool{}
	for _, pi := range list {
		listed[pi.Name] = true
		listedIDs[pi.ProviderID] = pi.ProviderID != ""
	}
	for _, in := range rows {
		// An instance an operation works on, or one changed after the listing began (an
		// operation that ended meanwhile), may be missing from the listing rightly.
		if busy[in.Name] || r.instanceBusy(in.Name) || !in.UpdatedAt.Before(listedAt) {
			continue
		}
		switch in.Status {
		case garrison.InstanceCreating:
			r.resolveWith(ctx, env, in, list)
			settled++
		case garrison.InstanceRunning, garrison.InstanceStopped, garrison.InstanceUnknown:
			if !listed[in.Name] && !(in.ProviderID != "" && listedIDs[in.ProviderID]) {
				r.markDeleteAnyway(ctx, env, in.Name, "the instance is gone from the provider")
				settled++
			}
		}
	}
	return settled
}

// markDeleteAnyway marks an instance whose compute is gone, busy runner or not.
func (r *Reconciler) markDeleteAnyway(ctx context.Context, env *poolEnv, name, reason string) {
	_, err := r.transition(ctx, env, name, markable, garrison.InstancePendingDelete, garrison.LevelWarning,
		"marked for deletion: "+reason, nil)
	if err != nil && !errors.Is(err, errStale) {
		r.log.Warn("repair: mark instance", env.attrs(slog.String("instance", name), slog.Any("err", err))...)
	}
}

// removeGhostRunners deregisters idle forge runners named like the pool's that no
// instance record stands behind, and recycles the pool's stranded runners.
func (r *Reconciler) removeGhostRunners(ctx context.Context, env *poolEnv) error {
	f, err := env.getForge(ctx)
	if err != nil {
		return err
	}
	runners, listedAt, err := r.entityRunners(ctx, env, f)
	if err != nil {
		return fmt.Errorf("list forge runners: %w", err)
	}
	r.recycleStranded(ctx, env, runners, listedAt)
	known := make(map[string]bool, len(env.instances))
	for _, in := range env.instances {
		known[in.Name] = in.Status != garrison.InstanceDeleted // recorded when the pool was loaded: no store read needed
	}
	for _, rn := range runners {
		if rn.Busy || known[rn.Name] || !ownsRunnerName(env.pool, rn.Name) {
			continue
		}
		in, err := r.o.Store.Instance(ctx, rn.Name)
		if err == nil && in.Status == garrison.InstanceDeleted {
			err = garrison.ErrNotFound // a history record: its runner should be gone
		}
		if !errors.Is(err, garrison.ErrNotFound) {
			continue
		}
		err = f.DeleteRunner(ctx, env.entity, rn.ID)
		r.log.Warn("repair: deregistered a forge runner with no instance",
			env.attrs(slog.String("runner", rn.Name), slog.Int64("runner_id", rn.ID), slog.Any("err", err))...)
	}
	return nil
}

// runnerListTTL is how long one listing of an entity's forge runners serves the repairs
// of its pools (at most half the repair interval): an entity with many pools is listed
// once, not once per pool. A listing
// only proposes candidates; each is checked against the store before it is removed.
const runnerListTTL = time.Minute

// runnerList is an entity's forge runners as listed at a time.
type runnerList struct {
	at      time.Time
	runners []garrison.Runner
}

// entityRunners lists the entity's forge runners, reusing a listing younger than
// runnerListTTL.
func (r *Reconciler) entityRunners(ctx context.Context, env *poolEnv, f Forge) ([]garrison.Runner, time.Time, error) {
	now := r.o.Now()
	r.mu.Lock()
	l, ok := r.runnerLists[env.entity.ID]
	r.mu.Unlock()
	if ok && now.Sub(l.at) < min(runnerListTTL, r.o.RepairInterval/2) && !now.Before(l.at) {
		return l.runners, l.at, nil
	}
	runners, err := f.ListRunners(ctx, env.entity)
	if err != nil {
		return nil, now, err
	}
	r.mu.Lock()
	r.runnerLists[env.entity.ID] = runnerList{at: now, runners: runners}
	r.mu.Unlock()
	return runners, now, nil
}

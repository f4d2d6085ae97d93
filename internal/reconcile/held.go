package reconcile

import (
	"context"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
)

// claim takes or renews this replica's lease on the pool (always held without Leases)
// and returns ctx fenced by it: the store refuses the writes made with it once another
// replica took the pool over (garrison.ErrFenced).
func (r *Reconciler) claim(ctx context.Context, poolID string) (context.Context, bool, error) {
	if r.o.Leases == nil {
		return ctx, true, nil
	}
	f, held, err := r.o.Leases.Lease(ctx, store.PoolClaim(poolID), r.o.Holder, r.o.LeaseTTL)
	r.noteHeld(poolID, held && err == nil)
	if err != nil || !held {
		return ctx, false, err
	}
	return store.WithFence(ctx, f), true, nil
}

// noteHeld remembers whether this replica holds the pool's lease, until when.
func (r *Reconciler) noteHeld(poolID string, held bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if held {
		r.held[poolID] = r.o.Now().Add(r.o.LeaseTTL)
	} else {
		delete(r.held, poolID)
	}
}

// holds reports whether this replica held the pool's lease at its last claim, and the
// lease has not expired since. Without Leases every pool is held.
func (r *Reconciler) holds(poolID string) bool {
	if r.o.Leases == nil {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	until, ok := r.held[poolID]
	return ok && r.o.Now().Before(until)
}

// NotifyHeld is Notify for work another replica announced (a webhook it stored, an API
// write it served): it enqueues only the pools this replica holds, whose reconciles are
// this replica's to do. The others are their holders' (each replica is told), and a pool
// nobody holds is taken by the replica that stored the work, or by the next resync.
func (r *Reconciler) NotifyHeld(poolIDs ...string) {
	for _, id := range poolIDs {
		if r.holds(id) {
			r.pools.Add(id)
		}
	}
}

// HeldPools returns how many pools this replica holds the lease of, as of its last
// claims (0 without Leases: nothing is claimed).
func (r *Reconciler) HeldPools() int {
	if r.o.Leases == nil {
		return 0
	}
	now := r.o.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, until := range r.held {
		if now.Before(until) {
			n++
		}
	}
	return n
}

// Resync asks for every pool to be looked at now (after a notification channel was
// down: whatever it missed is found), as the ResyncInterval timer does.
func (r *Reconciler) Resync() { r.resync.Add(resyncKey) }

// releaseHeld gives up the pool leases this replica holds, once its steps have stopped,
// so that another replica takes its pools over at once rather than after the leases
// expire (a restart, a rolling upgrade).
func (r *Reconciler) releaseHeld(ctx context.Context) {
	if r.o.Leases == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r.mu.Lock()
	pools := make([]string, 0, len(r.held))
	for id := range r.held {
		pools = append(pools, id)
	}
	clear(r.held)
	r.mu.Unlock()
	for _, id := range pools {
		if err := r.o.Leases.ReleaseLease(ctx, store.PoolClaim(id), r.o.Holder); err != nil {
			r.log.Warn("reconcile: releasing a pool lease", slog.String("pool", id), slog.Any("err", err))
			return
		}
	}
	if len(pools) > 0 {
		r.log.Info("reconcile: released the pool leases", slog.Int("pools", len(pools)))
	}
}

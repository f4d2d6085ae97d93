package reconcile

import (
	"context"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
)

// claim takes or renews this replica's lease on the pool (always held without Leases)
// and returns ctx fenced by it: the store refuses the writes made with it once another
// replica took the pool over (garrison.ErrFenced). While the claim is held, it is renewed
// every third of the lease until release is called (see keepClaim); release is never nil.
func (r *Reconciler) claim(ctx context.Context, poolID string) (_ context.Context, release func(), held bool, err error) {
	if r.o.Leases == nil {
		return ctx, func() {}, true, nil
	}
	f, held, err := r.o.Leases.Lease(ctx, store.PoolClaim(poolID), r.o.Holder, r.o.LeaseTTL)
	r.noteHeld(poolID, held && err == nil)
	if err != nil || !held {
		return ctx, func() {}, false, err
	}
	return store.WithFence(ctx, f), r.keepClaim(ctx, poolID, f), true, nil
}

// keepClaim renews the claim f while a handler call acts under it, every renewEvery
// (default a third of the lease), and returns the function that stops the renewals. A
// step may outlast the lease (a slow provider, a forge call that retries): without
// renewals another replica would take the pool over meanwhile, the step's last write
// would be fenced, and the new holder's own step of the same length would meet the
// same fate, over and over. Renewals stop when the claim is lost (another holder, a new
// token): the step's writes stay fenced, as they must after a pause past the lease.
func (r *Reconciler) keepClaim(ctx context.Context, poolID string, f store.Fence) (stop func()) {
	every := r.renewEvery
	if every <= 0 {
		every = r.o.LeaseTTL / 3
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			g, held, err := r.o.Leases.Lease(ctx, f.Claim, r.o.Holder, r.o.LeaseTTL)
			switch {
			case err != nil && ctx.Err() == nil:
				r.log.Warn("reconcile: renewing a pool claim", slog.String("pool", poolID), slog.Any("err", err))
			case err != nil:
				return
			case !held || g.Token != f.Token:
				r.noteHeld(poolID, held)
				return // lost: what the step writes from now on is refused
			default:
				r.noteHeld(poolID, true)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
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

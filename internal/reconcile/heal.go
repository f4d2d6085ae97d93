package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// ProviderFailingError is a pool's degraded status: its runners keep failing (creates
// exhausted, installs failed, bootstrap timeouts), so it backs off (plan.Backoff).
type ProviderFailingError struct {
	Failures int
	Until    time.Time
	Fault    string
}

func (e *ProviderFailingError) Error() string {
	return fmt.Sprintf("degraded: provider failing (%d failed runners in a row, next runner not before %s): %s",
		e.Failures, e.Until.UTC().Format(time.RFC3339), e.Fault)
}

// Degraded says the pool still runs: it heals by itself.
func (e *ProviderFailingError) Degraded() bool { return true }

// markRetire marks a failed instance for deletion with its record kept as history: its
// runner status becomes failed and its fault the reason. A runner that came up since the
// plan (or took a job) is left alone.
func (r *Reconciler) markRetire(ctx context.Context, env *poolEnv, name, reason string) bool {
	_, err := r.o.Store.UpdateInstance(ctx, name, func(i *garrison.Instance) error {
		switch {
		case !hasStatus(markable, i.Status):
			return errStale
		case i.RunnerStatus == garrison.RunnerActive:
			return errRunnerBusy
		case i.Status != garrison.InstanceError && i.RunnerStatus == garrison.RunnerIdle:
			return errStale // it came up meanwhile
		}
		i.Status, i.RunnerStatus, i.ProviderFault = garrison.InstancePendingDelete, garrison.RunnerFailed, []byte(reason)
		return nil
	})
	if err != nil {
		return false
	}
	r.event(ctx, env, name, garrison.LevelError, "retired: "+reason+"; the record is kept as history")
	return true
}

// retired ends the delete flow of a retired instance: the record stays, as deleted.
func (r *Reconciler) retired(ctx context.Context, env *poolEnv, name string) error {
	_, err := r.transition(ctx, env, name, []garrison.InstanceStatus{garrison.InstanceDeleting}, garrison.InstanceDeleted,
		garrison.LevelInfo, "removed from the provider and the forge; kept as history until reaped", nil)
	if err != nil {
		return fmt.Errorf("reconcile: record retired instance %s: %w", name, err)
	}
	return nil
}

// reap removes history records the plan no longer keeps.
func (r *Reconciler) reap(ctx context.Context, env *poolEnv, names []string) {
	for _, name := range names {
		err := r.o.Store.DeleteInstance(ctx, name)
		if err != nil && !errors.Is(err, garrison.ErrNotFound) {
			r.log.Warn("reconcile: reap history record", env.attrs(slog.String("instance", name), slog.Any("err", err))...)
		}
	}
}

// seenUp notes when runners of the entity's pools were seen up, and returns what it
// remembers: a runner that came up ends its pool's failure streak even after it is gone.
func (r *Reconciler) seenUp(env *poolEnv) map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range env.instances {
		switch in.RunnerStatus {
		case garrison.RunnerIdle, garrison.RunnerActive, garrison.RunnerTerminated:
			if in.UpdatedAt.After(r.lastUp[in.PoolID]) {
				r.lastUp[in.PoolID] = in.UpdatedAt
			}
		}
	}
	out := make(map[string]time.Time, len(env.pools))
	for _, p := range env.pools {
		if t, ok := r.lastUp[p.ID]; ok {
			out[p.ID] = t
		}
	}
	if t, ok := r.lastUp[env.pool.ID]; ok {
		out[env.pool.ID] = t
	}
	return out
}

// noteBackoff records the pool's failure streak for its status; it logs when the pool
// becomes degraded or healthy again.
func (r *Reconciler) noteBackoff(p garrison.Pool, b *plan.Backoff) {
	r.mu.Lock()
	had := r.backoffs[p.ID] != nil
	if b != nil {
		r.backoffs[p.ID] = b
	} else {
		delete(r.backoffs, p.ID)
	}
	r.mu.Unlock()
	switch {
	case b != nil && !had:
		r.log.Warn("pool degraded: its runners keep failing; creates back off", slog.String("pool", p.ID),
			slog.Int("failures", b.Failures), slog.Time("until", b.Until), slog.String("fault", b.Fault))
	case b == nil && had:
		r.log.Info("pool healthy again: a runner came up", slog.String("pool", p.ID))
	}
}

// poolHealthy reports whether the pool has no fault, failure streak or rate limit noted:
// a runner coming up changes nothing its status reports.
func (r *Reconciler) poolHealthy(poolID string) bool {
	return r.poolFault(poolID) == nil && r.backoffFault(poolID) == nil && r.rateLimitFault(poolID) == nil
}

// backoffFault is the pool's failure streak as its status error, or nil.
func (r *Reconciler) backoffFault(poolID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.backoffs[poolID]; b != nil {
		return &ProviderFailingError{Failures: b.Failures, Until: b.Until, Fault: b.Fault}
	}
	return nil
}

// RateLimitedError is a pool's degraded status while the forge rate-limits its
// credentials: its creates and deletions wait for Until.
type RateLimitedError struct{ Until time.Time }

func (e *RateLimitedError) Error() string {
	return "degraded: rate-limited by the forge until " + e.Until.UTC().Format(time.RFC3339)
}

// Degraded says the pool still runs: it resumes after the reset.
func (e *RateLimitedError) Degraded() bool { return true }

// Degraded says a pool with no usable runner download still runs: its creates resume
// as soon as a download appears.
func (e *NoDownloadError) Degraded() bool { return true }

// poolRateLimited records that a step of the pool waits for the forge's rate limit (the
// pool's status shows it until the reset), and returns the step's result: wait for it.
func (r *Reconciler) poolRateLimited(env *poolEnv, rl *garrison.RateLimitError) workqueue.Result {
	r.mu.Lock()
	if rl.Until.After(r.rateLimits[env.pool.ID]) {
		r.rateLimits[env.pool.ID] = rl.Until
	}
	r.mu.Unlock()
	r.reportPool(env.pool, nil)
	return rateLimited(rl, r.o.Now())
}

// rateLimitFault is the pool's rate limit as its status error while it lasts, or nil.
func (r *Reconciler) rateLimitFault(poolID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	until, ok := r.rateLimits[poolID]
	if !ok {
		return nil
	}
	if !r.o.Now().Before(until) {
		delete(r.rateLimits, poolID)
		return nil
	}
	return &RateLimitedError{Until: until}
}

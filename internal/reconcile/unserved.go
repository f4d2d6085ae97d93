package reconcile

import (
	"context"
	"log/slog"
)

// recordUnserved remembers why the entity's jobs get no runner and logs each new reason.
// The reasons live in memory until the ledger has a column for them.
func (r *Reconciler) recordUnserved(ctx context.Context, env *poolEnv, list []Unserved) {
	next := make(map[int64]string, len(list))
	r.mu.Lock()
	prev := r.unserved[env.entity.ID]
	var fresh []Unserved
	for _, u := range list {
		next[u.JobID] = u.Reason
		if prev[u.JobID] != u.Reason {
			fresh = append(fresh, u)
		}
	}
	r.unserved[env.entity.ID] = next
	r.mu.Unlock()
	for _, u := range fresh {
		r.log.WarnContext(ctx, "job gets no runner", env.attrs(slog.Int64("job", u.JobID), slog.String("reason", u.Reason))...)
	}
}

// JobReason returns why a queued job gets no runner, if it does not.
func (r *Reconciler) JobReason(jobID int64) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.unserved {
		if reason, ok := m[jobID]; ok {
			return reason, true
		}
	}
	return "", false
}

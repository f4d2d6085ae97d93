package reconcile

import (
	"context"
	"log/slog"
	"slices"

	"github.com/garrison-ci/garrison/internal/reconcile/plan"
)

// recordUnserved remembers why the entity's jobs get no runner (JobReason answers from
// it) and logs each reason when it first applies to the entity: one line per reason with
// the number of jobs, not one per job, so a backlog does not grow the log. The reasons
// live in memory until the ledger has a column for them.
func (r *Reconciler) recordUnserved(ctx context.Context, env *poolEnv, list []plan.Unserved) {
	next := make(map[int64]string, len(list))
	count := map[string]int{}
	oldest := map[string]int64{}
	for _, u := range list {
		next[u.JobID] = u.Reason
		if count[u.Reason] == 0 {
			oldest[u.Reason] = u.JobID
		}
		count[u.Reason]++
	}
	r.mu.Lock()
	prev := r.reasons[env.entity.ID]
	r.unserved[env.entity.ID] = next
	r.reasons[env.entity.ID] = count
	r.mu.Unlock()
	var fresh []string
	for reason := range count {
		if prev[reason] == 0 {
			fresh = append(fresh, reason)
		}
	}
	slices.Sort(fresh)
	for _, reason := range fresh {
		r.log.WarnContext(ctx, "jobs get no runner", env.attrs(slog.String("reason", reason),
			slog.Int("jobs", count[reason]), slog.Int64("oldest_job", oldest[reason]))...)
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

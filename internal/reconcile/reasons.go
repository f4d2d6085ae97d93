package reconcile

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
)

// errReasonKept aborts a reason write that would change nothing.
var errReasonKept = errors.New("reconcile: job reason unchanged")

// recordReasons writes to the job ledger why the entity's queued jobs wait, where it
// changed: the plan's reason for each job it cannot serve, none for the others (jobs the
// plan binds to a runner are left to lockJob, which clears the reason with the lock). It
// logs each reason when it first applies to the entity's jobs: one line per reason with
// the number of jobs, not one per job, so a backlog does not grow the log.
func (r *Reconciler) recordReasons(ctx context.Context, env *poolEnv, acts plan.Actions) {
	want := make(map[int64]string, len(acts.Unserved))
	for _, u := range acts.Unserved {
		want[u.JobID] = u.Reason
	}
	locked := map[int64]bool{}
	for _, c := range acts.Creates {
		locked[c.JobID] = true
	}
	for _, l := range acts.Locks {
		locked[l.JobID] = true
	}
	had := map[string]bool{} // reasons some job of the entity had before
	for _, j := range env.jobs {
		had[j.Reason] = true
	}
	fresh := map[string][]int64{} // reasons new to the entity -> their jobs
	for _, j := range env.jobs {
		reason := want[j.ID]
		if j.Reason == reason || j.Action != garrison.JobQueued || (reason == "" && locked[j.ID]) {
			continue
		}
		if !r.writeReason(ctx, env, j.ID, reason) {
			continue
		}
		if reason != "" && !had[reason] {
			fresh[reason] = append(fresh[reason], j.ID)
		}
	}
	r.logReasons(ctx, env, fresh)
}

// writeReason records a queued job's reason; it reports whether it wrote it.
func (r *Reconciler) writeReason(ctx context.Context, env *poolEnv, jobID int64, reason string) bool {
	j, err := r.o.Store.UpsertJob(ctx, jobID, func(j *garrison.Job, exists bool) error {
		if !exists || j.Action != garrison.JobQueued || j.Reason == reason {
			return errReasonKept
		}
		j.Reason = reason
		return nil
	})
	if err != nil {
		if !errors.Is(err, errReasonKept) && ctx.Err() == nil {
			r.log.Warn("reconcile: record job reason", env.attrs(slog.Int64("job", jobID), slog.Any("err", err))...)
		}
		return false
	}
	r.jobs.Put(j)
	return true
}

// logReasons logs the reasons that newly apply to the entity's jobs.
func (r *Reconciler) logReasons(ctx context.Context, env *poolEnv, fresh map[string][]int64) {
	reasons := make([]string, 0, len(fresh))
	for reason := range fresh {
		reasons = append(reasons, reason)
	}
	slices.Sort(reasons)
	for _, reason := range reasons {
		r.log.WarnContext(ctx, "jobs get no runner", env.attrs(slog.String("reason", reason),
			slog.Int("jobs", len(fresh[reason])), slog.Int64("oldest_job", slices.Min(fresh[reason])))...)
	}
}

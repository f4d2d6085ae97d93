package scaleset

import (
	"context"
	"errors"
	"hash/fnv"
	"log/slog"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
)

// ledgerID is the job ledger key of a scale-set job. The Actions service names a job by
// a string id (a GUID on github.com) and, on GHES, a runner request id, never by the
// workflow job id that webhooks carry; the key is a hash of the string id, negative so
// that it never collides with a forge's workflow job id. 0 when the message has neither.
func ledgerID(j JobMessage) int64 {
	key := "job:" + j.JobID
	if j.JobID == "" {
		if j.RunnerRequestID == 0 {
			return 0
		}
		key = "request:" + strconv.FormatInt(j.RunnerRequestID, 10)
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return -int64(h.Sum64()>>2) - 1
}

// ledgerUpdate is what a job message tells the ledger; false for a message that is not
// about a job's progress.
func ledgerUpdate(j JobMessage) (garrison.Job, bool) {
	u := garrison.Job{ID: ledgerID(j), Name: j.JobDisplayName, RunID: j.WorkflowRunID, RepositoryName: j.RepositoryName,
		RepositoryOwner: j.OwnerName, Labels: j.RequestLabels, RunnerName: j.RunnerName, RunnerID: j.RunnerID}
	switch j.Type {
	case JobAvailable, JobAssigned:
		u.Action = garrison.JobQueued
	case JobStarted:
		u.Action = garrison.JobInProgress
	case JobCompleted:
		u.Action, u.Conclusion = garrison.JobCompleted, conclusion(j.Result)
	default:
		return garrison.Job{}, false
	}
	u.Status = string(u.Action)
	return u, u.ID != 0
}

// conclusion maps a JobCompleted result to the workflow conclusion webhooks report.
func conclusion(result string) string {
	switch result {
	case "succeeded":
		return "success"
	case "failed":
		return "failure"
	case "canceled":
		return "cancelled"
	}
	return result
}

var errOtherEntity = errors.New("the ledger row belongs to another entity")

// applyLedger merges u into the ledger row j with the domain's rules (Job.Advance: an
// action never goes back), for the scale set ss. A job the service requeued after its
// assignment timed out (JobCompleted canceled, no runner, then JobAssigned again) is
// reopened. A queued job's reason says which scale set serves it.
func applyLedger(j *garrison.Job, exists bool, u garrison.Job, ss garrison.ScaleSet, now time.Time) error {
	if exists && j.EntityID != "" && j.EntityID != ss.EntityID {
		return errOtherEntity
	}
	if exists && u.Action == garrison.JobQueued && j.Action == garrison.JobCompleted && j.RunnerName == "" {
		j.Action, j.Conclusion, j.CompletedAt = garrison.JobQueued, "", time.Time{}
	}
	if err := j.Advance(u); err != nil {
		return err
	}
	if j.EntityID == "" {
		j.EntityID, j.EntityType = ss.EntityID, ss.EntityType
	}
	j.Reason = ""
	switch j.Action {
	case garrison.JobQueued:
		j.Reason = garrison.ReasonScaleSet(ss.Name)
	case garrison.JobInProgress:
		if j.StartedAt.IsZero() {
			j.StartedAt = now
		}
	case garrison.JobCompleted:
		if j.StartedAt.IsZero() && j.RunnerName != "" {
			j.StartedAt = now
		}
		if j.CompletedAt.IsZero() {
			j.CompletedAt = now
		}
	}
	return nil
}

// recordJobs writes a message's job events to the job ledger that pools use too, so that
// job list, the queue-time metrics and a waiting job's reason cover scale-set jobs. The
// ledger is the record, not the scaling signal: a write that fails is logged and the
// message is processed all the same.
func (c *Controller) recordJobs(ctx context.Context, ss garrison.ScaleSet, jobs []JobMessage) {
	now := c.o.Now().UTC()
	for _, jm := range jobs {
		u, ok := ledgerUpdate(jm)
		if !ok {
			continue
		}
		_, err := c.o.Store.UpsertJob(ctx, u.ID, func(j *garrison.Job, exists bool) error {
			return applyLedger(j, exists, u, ss, now)
		})
		if err != nil && garrison.CodeOf(err) != garrison.EInvalid { // EInvalid: a late, older event
			c.log.Warn("scaleset: recording a job in the ledger", c.attrs(ss, slog.String("job", jm.JobID),
				slog.String("event", jm.Type), slog.Any("err", err))...)
		}
	}
}

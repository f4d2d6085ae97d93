package intake

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/store"
)

// errNotRecorded refuses a new job that no pool can serve and no runner of ours runs
// (W-9); the message is set per job.
func errNotRecorded(id int64) error {
	return garrison.Errorf(garrison.EUnprocessable, "job %d should not be recorded", id)
}

// errForeignJob leaves alone a job the ledger records for another entity, when the
// delivery names no runner of this entity: a holder of one entity's webhook secret must
// not advance another entity's jobs.
var errForeignJob = errors.New("intake: job recorded for another entity")

// errRanElsewhere drops from the ledger a job no pool could serve once it runs: it was
// recorded only to say why it waited, and some other runner took it.
var errRanElsewhere = errors.New("intake: a job no pool could serve ran elsewhere")

// errScaleSetJob leaves a job a runner scale set serves to that scale set: its listener
// records it from the service's messages, so a row here would list the job twice.
var errScaleSetJob = errors.New("intake: job served by a runner scale set")

// ruleError marks a job refused by the ledger rules, as opposed to a store failure.
type ruleError struct{ error }

func (e *ruleError) Unwrap() error { return e.error }

// target is what a delivery's job concerns on our side.
type target struct {
	pools    []garrison.Pool    // enabled pools of the entity matching the labels
	reason   string             // with no such pool, why (garrison.UnservedReason)
	instance *garrison.Instance // our instance named runner_name, in a pool of the entity; nil when not ours
	foreign  bool               // runner_name is our instance, but in a pool of another entity
	scaleSet string             // the entity's runner scale set that serves the job's labels, if any
}

// unserved reports whether no pool can serve the job and no runner of ours runs it.
func (tg target) unserved() bool { return len(tg.pools) == 0 && tg.instance == nil }

// record applies the job rules (W-9) and side effects (W-10) of a verified delivery.
func (h *Handler) record(ctx context.Context, ev *webhook.Event, ent garrison.Entity) reply {
	if err := validateOwner(ev, ent); err != nil {
		h.logf(ctx, slog.LevelWarn, ResultRejected, "webhook: owner mismatch", "delivery", ev.DeliveryID, "entity", ent.FullName())
		return errReply(ResultRejected, err)
	}
	action := garrison.JobAction(ev.Action)
	if len(ev.Labels) == 0 || action.Rank() == 0 {
		return okReply(ResultIgnored) // no labels: not for self-hosted runners; "waiting": wait for queued
	}
	tg, err := h.target(ctx, ev, ent)
	if err != nil {
		return h.storeFailure(ctx, ev, "read pools and instance", err)
	}
	if tg.foreign {
		h.logf(ctx, slog.LevelInfo, ResultForeignRunner, "webhook: job names a runner of another entity's pool",
			"delivery", ev.DeliveryID, "entity", ent.FullName(), "job", ev.JobID, "runner", ev.RunnerName, "action", ev.Action)
		return okReply(ResultForeignRunner)
	}
	recorded := false // a new job, recorded
	_, _, err = h.store.RecordJob(ctx, h.jobRecord(ev, ent, tg, &recorded))
	var rule *ruleError
	switch {
	case !errors.As(err, &rule):
		if err != nil {
			return h.storeFailure(ctx, ev, "record job", err)
		}
		if recorded && tg.unserved() {
			h.logf(ctx, slog.LevelInfo, ResultNotRecorded, "webhook: no pool can serve the job; recorded with the reason",
				"delivery", ev.DeliveryID, "entity", ent.FullName(), "job", ev.JobID, "labels", ev.Labels, "reason", tg.reason)
			return errReply(ResultNotRecorded, errNotRecorded(ev.JobID)) // W-9: the answer stays 422
		}
	case errors.Is(err, errRanElsewhere):
		if err := h.store.DeleteJob(ctx, ev.JobID); err != nil {
			return h.storeFailure(ctx, ev, "drop job", err)
		}
		return errReply(ResultNotRecorded, errNotRecorded(ev.JobID))
	case errors.Is(err, errScaleSetJob):
		h.logf(ctx, slog.LevelDebug, ResultIgnored, "webhook: job left to its runner scale set", "delivery", ev.DeliveryID,
			"entity", ent.FullName(), "job", ev.JobID, "scale_set", tg.scaleSet, "action", ev.Action)
		return okReply(ResultIgnored)
	case errors.Is(err, errForeignJob):
		h.logf(ctx, slog.LevelInfo, ResultForeignJob, "webhook: job belongs to another entity", "delivery", ev.DeliveryID,
			"entity", ent.FullName(), "job", ev.JobID, "action", ev.Action)
		return okReply(ResultForeignJob)
	case garrison.CodeOf(err) == garrison.EUnprocessable:
		h.logf(ctx, slog.LevelInfo, ResultNotRecorded, "webhook: no pool can serve the job", "delivery", ev.DeliveryID,
			"entity", ent.FullName(), "job", ev.JobID, "labels", ev.Labels, "action", ev.Action)
		return errReply(ResultNotRecorded, err)
	case garrison.CodeOf(err) == garrison.EInvalid:
		h.logf(ctx, slog.LevelInfo, ResultRejected, "webhook: job status going backwards", "delivery", ev.DeliveryID,
			"entity", ent.FullName(), "job", ev.JobID, "action", ev.Action)
		return errReply(ResultRejected, err)
	}
	rp := okReply(ResultOK)
	rp.notify = notified(tg)
	return rp
}

// validateOwner checks the delivery names the entity it was routed to (W-9). A forge
// instance serves every repository of its server: its deliveries name no owner (FI-3).
func validateOwner(ev *webhook.Event, ent garrison.Entity) error {
	typ, _ := entityType(ev.TargetType)
	if typ == garrison.ForgeInstance && ent.Type == typ {
		return nil
	}
	if typ != ent.Type || !ent.SameName(ev.EntityOwner, ev.EntityName) {
		return garrison.Errorf(garrison.EInvalid, "job not meant for %s", ent.FullName())
	}
	return nil
}

// target reads the pools matching the job and the instance running it. The instance is
// ours only when its pool belongs to ent, the entity whose secret verified the delivery:
// another entity's delivery never touches it (W-10).
func (h *Handler) target(ctx context.Context, ev *webhook.Event, ent garrison.Entity) (target, error) {
	pools, reason, err := h.matchingPools(ctx, ev, ent)
	if err != nil {
		return target{}, err
	}
	tg := target{pools: pools, reason: reason}
	if tg.scaleSet, err = h.servingScaleSet(ctx, ent.ID, ev.Labels); err != nil {
		return target{}, err
	}
	if ev.RunnerName == "" {
		return tg, nil
	}
	inst, err := h.store.Instance(ctx, ev.RunnerName)
	switch {
	case errors.Is(err, garrison.ErrNotFound):
		return tg, nil
	case err != nil:
		return target{}, err
	}
	owned, err := h.owns(ctx, ent.ID, inst)
	switch {
	case err != nil:
		return target{}, err
	case owned:
		tg.instance = &inst
	default:
		tg.foreign = true
	}
	return tg, nil
}

// owns reports whether inst runs in one of the entity's pools or scale sets.
func (h *Handler) owns(ctx context.Context, entityID string, inst garrison.Instance) (bool, error) {
	if inst.ScaleSetID == 0 {
		return h.hasPool(ctx, entityID, inst.PoolID)
	}
	ss, err := h.store.ScaleSet(ctx, inst.ScaleSetID)
	switch {
	case errors.Is(err, garrison.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return ss.EntityID == entityID, nil
}

// hasPool reports whether poolID is one of the entity's pools, enabled or not. Cached
// pools only ever accept: a pool they lack is looked for again in fresh data, so that the
// runner of a pool created a moment ago is ours at once.
func (h *Handler) hasPool(ctx context.Context, entityID, poolID string) (bool, error) {
	has := func(ps []garrison.Pool) bool {
		return slices.ContainsFunc(ps, func(p garrison.Pool) bool { return p.ID == poolID })
	}
	pools, cached, err := h.cache.listPools(ctx, entityID, false)
	if err != nil {
		return false, err
	}
	if has(pools) || !cached {
		return has(pools), nil
	}
	if pools, _, err = h.cache.listPools(ctx, entityID, true); err != nil {
		return false, err
	}
	return has(pools), nil
}

// servingScaleSet names the entity's runner scale set that serves a job with these
// labels, "" when none does. A cached scale set is looked for again in fresh data before
// the job is left to it: a scale set deleted a moment ago must not take a pool's job.
func (h *Handler) servingScaleSet(ctx context.Context, entityID string, labels []string) (string, error) {
	find := func(sets []garrison.ScaleSet) string {
		for _, ss := range sets {
			if ss.Serves(labels) {
				return ss.Name
			}
		}
		return ""
	}
	sets, cached, err := h.cache.listScaleSets(ctx, entityID, false)
	if err != nil || find(sets) == "" || !cached {
		return find(sets), err
	}
	if sets, _, err = h.cache.listScaleSets(ctx, entityID, true); err != nil {
		return "", err
	}
	return find(sets), nil
}

// matchingPools returns the enabled pools of ent that have all of the job's labels, and
// with none why not. When the cached pools have none and the job is queued, how it is
// recorded depends on them (W-9): they are read again, so that a pool created a moment
// ago gets the job.
func (h *Handler) matchingPools(ctx context.Context, ev *webhook.Event, ent garrison.Entity) ([]garrison.Pool, string, error) {
	pools, cached, err := h.cache.listPools(ctx, ent.ID, false)
	if err != nil {
		return nil, "", err
	}
	match := garrison.MatchingPools(pools, ev.Labels)
	if len(match) == 0 && cached && ev.Status == string(garrison.JobQueued) {
		if pools, _, err = h.cache.listPools(ctx, ent.ID, true); err != nil {
			return nil, "", err
		}
		match = garrison.MatchingPools(pools, ev.Labels)
	}
	if len(match) > 0 {
		return match, "", nil
	}
	return nil, garrison.UnservedReason(pools, ev.Labels), nil
}

// apply is the ledger update, run inside UpsertJob's transaction.
func (h *Handler) apply(j *garrison.Job, exists bool, ev *webhook.Event, ent garrison.Entity, tg target) error {
	if exists && j.EntityID != "" && j.EntityID != ent.ID && tg.instance == nil {
		return errForeignJob // a runner of ent running it would be tg.instance
	}
	queued := ev.Status == string(garrison.JobQueued)
	switch {
	case !exists && tg.scaleSet != "":
		return errScaleSetJob // a row written before scale sets recorded their jobs is still kept up
	case !exists && !queued && tg.instance == nil:
		return errNotRecorded(ev.JobID)
	case !exists && tg.unserved():
		j.Reason = tg.reason // recorded to say why it waits; answered 422 all the same
	case exists && !queued && tg.unserved() && j.Action == garrison.JobQueued && j.LockedBy == "":
		return errRanElsewhere
	}
	if err := j.Advance(ev.Job()); err != nil {
		return err
	}
	if j.EntityID == "" {
		j.EntityID, j.EntityType = ent.ID, ent.Type
	}
	now := h.opts.Now().UTC()
	if j.Action.Rank() >= garrison.JobInProgress.Rank() && j.StartedAt.IsZero() {
		j.StartedAt = now
	}
	if j.Action == garrison.JobCompleted && j.CompletedAt.IsZero() {
		j.CompletedAt = now
	}
	return nil
}

// jobRecord is the write of a delivery: the ledger update (apply) and, in the same
// transaction, the side effect on our runner's instance for in_progress and completed
// jobs (W-10) with its status message. recorded is set when a new job is recorded.
func (h *Handler) jobRecord(ev *webhook.Event, ent garrison.Entity, tg target, recorded *bool) store.JobRecord {
	r := store.JobRecord{ID: ev.JobID, Job: func(j *garrison.Job, exists bool) error {
		if err := h.apply(j, exists, ev, ent, tg); err != nil {
			return &ruleError{err}
		}
		*recorded = !exists
		return nil
	}}
	if tg.instance == nil || tg.instance.ScaleSetID != 0 {
		// A scale set's runner follows its scale set's messages alone (W-10): one that a
		// completed delivery marked for deletion first was left for the listener to hand
		// to the instances controller, which then found nothing to change and handed over
		// nothing, so the runner sat in pending_delete.
		return r
	}
	r.Runner = tg.instance.Name
	r.Instance = func(i *garrison.Instance, job garrison.Job) bool {
		msg := instanceUpdate(i, job)
		if msg == "" {
			return false
		}
		i.StatusMessages = append(i.StatusMessages, garrison.Event{
			CreatedAt: h.opts.Now().UTC(), Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: msg,
		})
		return true
	}
	return r
}

// instanceUpdate edits an instance for a job its runner took and returns a status message,
// "" when nothing changed.
func instanceUpdate(i *garrison.Instance, job garrison.Job) string {
	switch job.Action {
	case garrison.JobInProgress:
		if i.RunnerStatus == garrison.RunnerTerminated || i.Status.Deleting() ||
			(i.RunnerStatus == garrison.RunnerActive && i.JobID == job.ID) {
			return ""
		}
		i.RunnerStatus, i.JobID = garrison.RunnerActive, job.ID
		return fmt.Sprintf("runner started job %d", job.ID)
	case garrison.JobCompleted:
		if i.RunnerStatus == garrison.RunnerTerminated && (i.Status.Deleting() || i.Status == garrison.InstanceCreating) {
			return ""
		}
		i.RunnerStatus, i.JobID = garrison.RunnerTerminated, job.ID
		if i.Status != garrison.InstanceCreating && i.Status.CanTransition(garrison.InstancePendingDelete) && !i.Status.Deleting() {
			i.Status = garrison.InstancePendingDelete
		}
		return fmt.Sprintf("runner finished job %d; instance to be removed", job.ID)
	}
	return ""
}

// notified returns the pools a job concerns, to be enqueued.
func notified(tg target) []string {
	ids := make([]string, 0, len(tg.pools)+1)
	for _, p := range tg.pools {
		ids = append(ids, p.ID)
	}
	if tg.instance != nil && tg.instance.PoolID != "" {
		dup := false
		for _, id := range ids {
			dup = dup || id == tg.instance.PoolID
		}
		if !dup {
			ids = append(ids, tg.instance.PoolID)
		}
	}
	return ids
}

// storeFailure logs a store error and answers 500 without details.
func (h *Handler) storeFailure(ctx context.Context, ev *webhook.Event, what string, err error) reply {
	h.logf(ctx, slog.LevelError, ResultError, "webhook: "+what, "delivery", ev.DeliveryID, "job", ev.JobID, "err", err)
	return reply{status: 500, result: ResultError, err: err}
}

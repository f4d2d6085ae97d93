package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// errJobTaken aborts a job lock when the job is no longer waiting.
var errJobTaken = errors.New("reconcile: job no longer queued")

// reconcile is the pools controller's handler for one pool key: it reads the pool and
// its entity's state from the store, plans, and carries out the store steps of the plan.
// Provider and forge work goes to the instances controller, by instance key; no provider
// or forge call happens here.
func (r *Reconciler) reconcile(ctx context.Context, poolID string) (workqueue.Result, error) {
	env, err := r.load(ctx, poolID)
	switch {
	case errors.Is(err, garrison.ErrNotFound) && env == nil:
		r.forgetPool(poolID)
		r.passes.done(poolID, stepPlanned, stepRepaired)
		return workqueue.Result{}, nil // the pool is gone
	case errors.Is(err, garrison.ErrNotFound):
		r.reportPool(env.pool, err)
		r.passes.done(poolID, stepPlanned, stepRepaired)
		return workqueue.Result{}, workqueue.Terminal(err) // configuration: unknown provider or entity
	case err != nil:
		return workqueue.Result{}, err
	}
	ctx, release, held, err := r.claim(ctx, poolID)
	defer release()
	if err != nil || !held {
		if err == nil {
			r.passes.done(poolID, stepPlanned, stepRepaired) // another replica's
		}
		return workqueue.Result{RequeueAfter: r.o.LeaseTTL / 2}, err
	}
	r.ensureRepair(poolID)
	acts := plan.Plan(env.spec(r.o.Policy), r.observed(env))
	r.execute(ctx, env, acts)
	r.recordReasons(ctx, env, acts)
	r.noteBackoff(env.pool, acts.Backoff)
	r.reportPool(env.pool, nil)
	r.passes.done(poolID, stepPlanned)
	return workqueue.Result{RequeueAfter: acts.RequeueAfter}, nil
}

// reportPool tells Options.PoolStatus how the pool's last reconcile went; a pool that
// reconciled fine still reports what degrades it: the fault that fails its creates
// (notePoolFault), its failure streak (noteBackoff) or the forge's rate limit. Errors
// with a Degraded() method leave the pool running.
func (r *Reconciler) reportPool(p garrison.Pool, err error) {
	if err == nil {
		err = r.poolFault(p.ID)
	}
	if err == nil {
		err = r.backoffFault(p.ID)
	}
	if err == nil {
		err = r.rateLimitFault(p.ID)
	}
	if r.o.PoolStatus != nil {
		r.o.PoolStatus(p, err)
	}
}

// observed snapshots what the plan needs beyond the store: the instances the instances
// controller holds a step for.
func (r *Reconciler) observed(env *poolEnv) plan.Observed {
	obs := plan.Observed{Now: r.o.Now(), Instances: env.instances, Jobs: env.jobs, Busy: map[string]bool{},
		LastUp: r.seenUp(env)}
	for _, in := range env.instances {
		if r.instanceBusy(in.Name) {
			obs.Busy[in.Name] = true
		}
	}
	return obs
}

// execute carries out the store steps of the plan — job locks, new pending_create rows,
// instances marked for deletion — and hands every instance the plan wants an operation
// on to the instances controller.
func (r *Reconciler) execute(ctx context.Context, env *poolEnv, acts plan.Actions) {
	for _, l := range acts.Locks {
		r.lockJob(ctx, env, l.JobID, l.InstanceID)
	}
	for _, c := range acts.Creates {
		in, err := r.insertInstance(ctx, env, c)
		if err != nil {
			r.log.Error("reconcile: create instance record", env.attrs(slog.Any("err", err))...)
			continue
		}
		r.instances.Add(in.Name)
	}
	for _, names := range [][]string{acts.Resumes, acts.Retries, acts.Resolves} {
		for _, name := range names {
			r.instances.Add(name)
		}
	}
	for _, d := range acts.Deletes {
		switch {
		case d.Retire && !r.markRetire(ctx, env, d.Instance, d.Reason):
			continue
		case d.Mark && !d.Retire && !r.markDelete(ctx, env, d.Instance, d.Reason):
			continue
		}
		r.instances.Add(d.Instance)
	}
	r.reap(ctx, env, acts.Reaps)
}

// insertInstance stores a new pending_create instance for the pool and locks the job it
// is made for.
func (r *Reconciler) insertInstance(ctx context.Context, env *poolEnv, c plan.Create) (garrison.Instance, error) {
	p := env.pool
	msg := "instance requested: " + c.Reason
	in, err := r.o.Store.CreateInstance(ctx, garrison.Instance{
		Name: runnerName(p), PoolID: p.ID, ProviderName: p.ProviderName, OSType: p.OSType, OSArch: p.OSArch,
		Status: garrison.InstancePendingCreate, RunnerStatus: garrison.RunnerPending, CreateAttempt: 1,
		Generation: p.Generation, RunnerGroup: p.RunnerGroup,
		MetadataURL: env.controller.MetadataURL, CallbackURL: env.controller.CallbackURL,
		StatusMessages: []garrison.Event{statusEvent(garrison.LevelInfo, msg)}, // one write with the row
	})
	if err != nil {
		return in, fmt.Errorf("reconcile: store new instance: %w", err)
	}
	r.logEvent(ctx, env, in.Name, garrison.LevelInfo, msg)
	if c.JobID != 0 {
		r.lockJob(ctx, env, c.JobID, in.ID)
	}
	return in, nil
}

// lockJob records in the ledger that the instance was made (or claimed) for the job, and
// that nothing holds the job up any more.
func (r *Reconciler) lockJob(ctx context.Context, env *poolEnv, jobID int64, instanceID string) {
	j, err := r.o.Store.UpsertJob(ctx, jobID, func(j *garrison.Job, exists bool) error {
		if !exists || j.Action != garrison.JobQueued {
			return errJobTaken
		}
		j.LockedBy, j.Reason = instanceID, "" // it gets a runner: nothing holds it up
		return nil
	})
	if err == nil {
		r.jobs.Put(j)
	}
	if err != nil && !errors.Is(err, errJobTaken) {
		r.log.Warn("reconcile: lock job", env.attrs(slog.Int64("job", jobID), slog.String("instance_id", instanceID), slog.Any("err", err))...)
	}
}

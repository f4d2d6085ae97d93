package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
)

// errJobTaken aborts a job lock when the job is no longer waiting.
var errJobTaken = errors.New("reconcile: job no longer queued")

// execute carries the plan out. Store-only steps (new instance rows, job locks) happen
// now, so that the next plan sees them; provider and forge work runs in the background,
// bounded by MaxOperations, with the instance marked in flight.
func (r *Reconciler) execute(ctx context.Context, env *poolEnv, acts plan.Actions) {
	for _, l := range acts.Locks {
		r.lockJob(ctx, env, l.JobID, l.InstanceID)
	}
	for _, c := range acts.Creates {
		in, err := r.insertInstance(ctx, env, c)
		if err != nil {
			r.log.Error("reconcile: create instance record", env.attrs(slog.Any("error", err))...)
			continue
		}
		r.startOp(ctx, env, in.Name, func(ctx context.Context) { r.provision(ctx, env, in.Name) })
	}
	for _, name := range acts.Resumes {
		r.startOp(ctx, env, name, func(ctx context.Context) { r.provision(ctx, env, name) })
	}
	for _, name := range acts.Retries {
		r.startOp(ctx, env, name, func(ctx context.Context) { r.retry(ctx, env, name) })
	}
	for _, name := range acts.Resolves {
		r.startOp(ctx, env, name, func(ctx context.Context) { r.resolve(ctx, env, name) })
	}
	for _, d := range acts.Deletes {
		r.startOp(ctx, env, d.Instance, func(ctx context.Context) { r.remove(ctx, env, d) })
	}
}

// startOp runs op for the named instance in the background unless one already runs,
// then asks for the pool to be looked at again.
func (r *Reconciler) startOp(ctx context.Context, env *poolEnv, name string, op func(context.Context)) {
	r.mu.Lock()
	if r.inflight[name] != "" {
		r.mu.Unlock()
		return
	}
	r.inflight[name] = env.pool.ID
	r.mu.Unlock()
	r.opsStarted.Add(1)
	r.ops.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.inflight, name)
			r.mu.Unlock()
			r.q.Add(env.pool.ID)
		}()
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-r.sem }()
		op(ctx)
	})
}

// insertInstance stores a new pending_create instance for the pool and locks the job it
// is made for.
func (r *Reconciler) insertInstance(ctx context.Context, env *poolEnv, c plan.Create) (garrison.Instance, error) {
	p := env.pool
	in, err := r.o.Store.CreateInstance(ctx, garrison.Instance{
		Name: runnerName(p), PoolID: p.ID, ProviderName: p.ProviderName, OSType: p.OSType, OSArch: p.OSArch,
		Status: garrison.InstancePendingCreate, RunnerStatus: garrison.RunnerPending, CreateAttempt: 1,
		Generation: p.Generation, RunnerGroup: p.RunnerGroup,
		MetadataURL: env.controller.MetadataURL, CallbackURL: env.controller.CallbackURL,
	})
	if err != nil {
		return in, fmt.Errorf("reconcile: store new instance: %w", err)
	}
	r.event(ctx, env, in.Name, garrison.LevelInfo, "instance requested: "+c.Reason)
	if c.JobID != 0 {
		r.lockJob(ctx, env, c.JobID, in.ID)
	}
	return in, nil
}

// lockJob records in the ledger that the instance was made (or claimed) for the job.
func (r *Reconciler) lockJob(ctx context.Context, env *poolEnv, jobID int64, instanceID string) {
	j, err := r.o.Store.UpsertJob(ctx, jobID, func(j *garrison.Job, exists bool) error {
		if !exists || j.Action != garrison.JobQueued {
			return errJobTaken
		}
		j.LockedBy = instanceID
		return nil
	})
	if err == nil {
		r.jobs.Put(j)
	}
	if err != nil && !errors.Is(err, errJobTaken) {
		r.log.Warn("reconcile: lock job", env.attrs(slog.Int64("job", jobID), slog.String("instance_id", instanceID), slog.Any("error", err))...)
	}
}

package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
)

var (
	// markable are the live statuses an instance is marked for deletion from.
	markable = []garrison.InstanceStatus{garrison.InstanceRunning, garrison.InstanceStopped,
		garrison.InstanceUnknown, garrison.InstanceError, garrison.InstancePendingCreate}
	// deletable are the statuses the delete flow starts from (deleting: resumed after a
	// restart; error: a force delete).
	deletable = []garrison.InstanceStatus{garrison.InstancePendingDelete, garrison.InstancePendingForceDelete,
		garrison.InstanceDeleting}
)

// errRunnerBusy aborts marking an instance whose runner took a job since the plan.
var errRunnerBusy = errors.New("reconcile: runner is busy")

// markDelete marks a live instance pending_delete, unless its runner is busy; it reports
// whether it did.
func (r *Reconciler) markDelete(ctx context.Context, env *poolEnv, name, reason string) bool {
	_, err := r.o.Store.UpdateInstance(ctx, name, func(i *garrison.Instance) error {
		switch {
		case !hasStatus(markable, i.Status):
			return errStale
		case i.RunnerStatus == garrison.RunnerActive:
			return errRunnerBusy
		}
		i.Status = garrison.InstancePendingDelete
		return nil
	})
	if err != nil {
		return false
	}
	r.event(ctx, env, name, garrison.LevelInfo, "marked for deletion: "+reason)
	return true
}

// remove runs the delete flow of an instance marked for deletion: pending_delete →
// deleting → forge runner removed → provider DeleteInstance → row deleted. A force delete
// ignores forge and provider errors; otherwise a failure puts the instance back and the
// handler fails, so that the instances controller backs the next attempt off.
func (r *Reconciler) remove(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	var force bool
	in, err := r.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
		if !hasStatus(deletable, i.Status) {
			return errStale
		}
		force = i.Status == garrison.InstancePendingForceDelete
		i.Status = garrison.InstanceDeleting
		return nil
	})
	if err != nil {
		return outcome{}, ignoreStale(ignoreNotFound(err))
	}
	r.event(ctx, env, in.Name, garrison.LevelInfo, "deleting instance")
	if err := r.removeEverywhere(ctx, env, in, force); err != nil {
		if ctx.Err() != nil {
			return outcome{}, nil // shutting down: the next process resumes the deletion
		}
		return done, r.deleteFailed(ctx, env, in.Name, force, err)
	}
	if err := r.o.Store.DeleteInstance(ctx, in.Name); err != nil {
		return done, fmt.Errorf("reconcile: delete instance row %s: %w", in.Name, err)
	}
	r.log.Info("instance deleted", env.attrs(slog.String("instance", in.Name))...)
	return done, nil
}

// ranItsJob reports whether the instance's runner took a job and finished it: the forge
// removes such an ephemeral runner itself, so deregistering it would only spend an API
// call on a 404. (Should the forge keep it after all, the periodic repair removes it.)
func ranItsJob(in garrison.Instance) bool {
	return in.JobID != 0 && in.RunnerStatus == garrison.RunnerTerminated
}

// removeEverywhere deregisters the forge runner and deletes the provider instance.
func (r *Reconciler) removeEverywhere(ctx context.Context, env *poolEnv, in garrison.Instance, force bool) error {
	if in.AgentID != 0 && !ranItsJob(in) {
		err := r.deregister(ctx, env, in)
		if err != nil && !force {
			return err
		}
		if err != nil {
			r.event(ctx, env, in.Name, garrison.LevelWarning, "force delete: ignoring: "+err.Error())
		}
	}
	err := env.prov.DeleteInstance(ctx, providerTarget(env, in))
	if err != nil && force {
		r.event(ctx, env, in.Name, garrison.LevelWarning, "force delete: ignoring provider error: "+err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete in provider: %w", err)
	}
	return nil
}

// deregister removes the instance's runner from the forge (a missing one is fine).
func (r *Reconciler) deregister(ctx context.Context, env *poolEnv, in garrison.Instance) error {
	f, err := env.getForge(ctx)
	if err != nil {
		return err
	}
	return r.removeRunner(ctx, env, f, in)
}

// deleteFailed puts the instance back in its pending state and returns the failure, for
// the instances controller to retry after its backoff.
func (r *Reconciler) deleteFailed(ctx context.Context, env *poolEnv, name string, force bool, cause error) error {
	back := garrison.InstancePendingDelete
	if force {
		back = garrison.InstancePendingForceDelete
	}
	msg := fmt.Sprintf("delete failed, will retry: %v", cause)
	if _, err := r.transition(ctx, env, name, []garrison.InstanceStatus{garrison.InstanceDeleting}, back, garrison.LevelError, msg, nil); err != nil {
		r.log.Error("reconcile: record failed delete", env.attrs(slog.String("instance", name), slog.Any("error", err))...)
	}
	return fmt.Errorf("reconcile: delete instance %s: %w", name, cause)
}

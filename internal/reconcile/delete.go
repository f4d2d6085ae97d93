package reconcile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/workqueue"
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
		i.StatusMessages = append(i.StatusMessages, statusEvent(garrison.LevelInfo, "marked for deletion: "+reason))
		return nil
	})
	if err != nil {
		return false
	}
	r.logEvent(ctx, env, name, garrison.LevelInfo, "marked for deletion: "+reason)
	return true
}

// remove runs the delete flow of an instance marked for deletion: pending_delete →
// deleting → forge runner removed → provider DeleteInstance → row deleted. A force delete
// ignores forge and provider errors; otherwise a failure puts the instance back and the
// handler fails, so that the instances controller backs the next attempt off. A forge
// that is rate limited puts it back too, to wait for the reset.
func (r *Reconciler) remove(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	if wait := r.busyWaitLeft(in, r.o.Now()); wait > 0 && in.Status != garrison.InstancePendingForceDelete {
		return outcome{res: workqueue.Result{RequeueAfter: wait}}, nil // the runner's job is not over
	}
	releaseProvider, ok := r.takeSlot(env, budgetProvider)
	if !ok {
		return outcome{}, nil // the budget hands the key back when a slot frees
	}
	defer releaseProvider()
	releaseForge := func() {}
	if in.AgentID != 0 {
		if releaseForge, ok = r.takeSlot(env, budgetCredentials); !ok {
			return outcome{}, nil
		}
		defer releaseForge()
	}
	var back garrison.InstanceStatus
	in, err := r.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
		if !hasStatus(deletable, i.Status) {
			return errStale
		}
		back = cmp.Or(returnStatus[i.Status], i.Status)
		i.Status = garrison.InstanceDeleting
		i.StatusMessages = append(i.StatusMessages, statusEvent(garrison.LevelInfo, "deleting instance"))
		return nil
	})
	if err != nil {
		return outcome{}, ignoreStale(ignoreNotFound(err))
	}
	force := back == garrison.InstancePendingForceDelete
	r.logEvent(ctx, env, in.Name, garrison.LevelInfo, "deleting instance")
	err = r.deregisterForDelete(ctx, env, in, force)
	releaseForge()
	var rl *garrison.RateLimitError
	if errors.As(err, &rl) && ctx.Err() == nil {
		r.putBack(ctx, env, in.Name, back, "deletion waits for the forge: "+rl.Error())
		return outcome{res: r.poolRateLimited(env, rl)}, nil
	}
	if refusedBusy(err) && ctx.Err() == nil {
		wait := r.noteRefusedBusy(in.Name, r.o.Now())
		r.putBack(ctx, env, in.Name, back, fmt.Sprintf("deletion waits for the runner's job (asking the forge again in %v): %v", wait, err))
		return outcome{res: workqueue.Result{RequeueAfter: wait}}, nil
	}
	if err == nil {
		err = r.deleteInProvider(ctx, env, in, force)
	}
	releaseProvider() // what follows is bookkeeping
	if err != nil {
		if ctx.Err() != nil {
			return outcome{}, nil // shutting down: the next process resumes the deletion
		}
		return done, r.deleteFailed(ctx, env, in.Name, force, err)
	}
	r.offlineSince(in.Name, time.Time{}, true)
	r.forgetBusy(in.Name)
	if in.RunnerStatus == garrison.RunnerFailed {
		return done, r.retired(ctx, env, in.Name)
	}
	if err := r.o.Store.DeleteInstance(ctx, in.Name); err != nil {
		return done, fmt.Errorf("reconcile: delete instance row %s: %w", in.Name, err)
	}
	r.log.Info("instance deleted", env.attrs(slog.String("instance", in.Name))...)
	return done, nil
}

// returnStatus is where a deletion goes back to when it must wait: a deletion resumed
// from deleting (after a restart) goes back to pending_delete.
var returnStatus = map[garrison.InstanceStatus]garrison.InstanceStatus{garrison.InstanceDeleting: garrison.InstancePendingDelete}

// putBack returns an instance from deleting to the status it was deleted from.
func (r *Reconciler) putBack(ctx context.Context, env *poolEnv, name string, back garrison.InstanceStatus, msg string) {
	if _, err := r.transition(ctx, env, name, []garrison.InstanceStatus{garrison.InstanceDeleting}, back, garrison.LevelInfo, msg, nil); err != nil {
		r.log.Error("reconcile: put deletion back", env.attrs(slog.String("instance", name), slog.Any("err", err))...)
	}
}

// ranItsJob reports whether the instance's runner took a job and finished it: the forge
// removes such an ephemeral runner itself, so deregistering it would only spend an API
// call on a 404. (Should the forge keep it after all, the periodic repair removes it.)
func ranItsJob(in garrison.Instance) bool {
	return in.JobID != 0 && in.RunnerStatus == garrison.RunnerTerminated
}

// deregisterForDelete deregisters the forge runner of an instance being deleted; a force
// delete ignores the failure (a rate limit included).
func (r *Reconciler) deregisterForDelete(ctx context.Context, env *poolEnv, in garrison.Instance, force bool) error {
	if in.AgentID == 0 || ranItsJob(in) {
		return nil
	}
	err := r.deregister(ctx, env, in)
	if err != nil && r.refusedAsBusy(in, err) {
		r.event(ctx, env, in.Name, garrison.LevelWarning, "the forge refuses to remove the runner as busy, but it has been offline for "+
			r.strandedFor(in.Name, r.o.Now()).Round(time.Second).String()+": deleting the instance anyway: "+err.Error())
		return nil
	}
	if err != nil && force {
		r.event(ctx, env, in.Name, garrison.LevelWarning, "force delete: ignoring: "+err.Error())
		return nil
	}
	return err
}

// deleteInProvider deletes the provider instance; a force delete ignores the failure.
func (r *Reconciler) deleteInProvider(ctx context.Context, env *poolEnv, in garrison.Instance, force bool) error {
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
		r.log.Error("reconcile: record failed delete", env.attrs(slog.String("instance", name), slog.Any("err", err))...)
	}
	return fmt.Errorf("reconcile: delete instance %s: %w", name, cause)
}

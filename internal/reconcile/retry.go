package reconcile

import (
	"context"
	"errors"
	"fmt"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/workqueue"
	"github.com/garrison-ci/garrison/provider"
)

// retry starts another create attempt of an instance in error once its backoff has
// passed (before that it asks to be looked at then): it removes what the last attempt
// left in the provider (postponing the retry if that fails), resets the instance and
// provisions it again with fresh credentials (D-7). Past the attempt limit, or in a
// disabled pool, a pool's instance stays in error for people to see (its pool's plan
// retires it); a scale set's is retired here.
func (r *Reconciler) retry(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	due, ok := plan.RetryDue(&in, &env.pool, r.o.Policy)
	if !ok && in.ScaleSetID != 0 {
		return r.retireScaleSetRunner(ctx, env, in), nil
	}
	if !ok {
		return outcome{}, nil
	}
	if now := r.o.Now(); now.Before(due) {
		return outcome{res: workqueue.Result{RequeueAfter: due.Sub(now)}}, nil
	}
	release, ok := r.takeSlot(env, budgetProvider)
	if !ok {
		return outcome{}, nil
	}
	err := env.prov.DeleteInstance(ctx, providerTarget(env, in))
	release()
	if err != nil {
		if ctx.Err() != nil {
			return outcome{}, nil
		}
		r.touch(ctx, env, in.Name, "retry postponed: cleanup in the provider failed: "+err.Error())
		return done, nil
	}
	in, err = r.transition(ctx, env, in.Name, []garrison.InstanceStatus{garrison.InstanceError}, garrison.InstancePendingCreate,
		garrison.LevelInfo, fmt.Sprintf("retrying create (attempt %d)", in.CreateAttempt+1), func(i *garrison.Instance) {
			i.CreateAttempt++
			i.ProviderID, i.Addresses, i.RunnerStatus = "", nil, garrison.RunnerPending
		})
	if err != nil {
		return outcome{}, ignoreStale(err)
	}
	out, err := r.provision(ctx, env, in)
	out.acted = true
	return out, err
}

// touch records a message and bumps UpdatedAt, restarting the instance's backoff.
func (r *Reconciler) touch(ctx context.Context, env *poolEnv, name, msg string) {
	if _, err := r.o.Store.UpdateInstance(ctx, name, func(*garrison.Instance) error { return nil }); err == nil {
		r.event(ctx, env, name, garrison.LevelWarning, msg)
	}
}

// resolve settles an instance left in creating by a process that is gone: running if
// the provider has it, else a failed attempt that the retry path takes over.
func (r *Reconciler) resolve(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	release, ok := r.takeSlot(env, budgetProvider)
	if !ok {
		return outcome{}, nil
	}
	defer release() // a listing that settles the instance may clean up in the provider
	list, err := env.prov.ListInstances(ctx, providerTarget(env, garrison.Instance{Name: in.Name}))
	if err != nil {
		if ctx.Err() != nil {
			return outcome{}, nil
		}
		return outcome{}, fmt.Errorf("reconcile: list provider instances to resolve %s: %w", in.Name, err)
	}
	in, err = r.o.Store.Instance(ctx, in.Name)
	if err != nil || in.Status != garrison.InstanceCreating {
		return outcome{}, ignoreNotFound(err)
	}
	r.resolveWith(ctx, env, in, list)
	return done, nil
}

// ignoreNotFound is err unless it says the thing is gone.
func ignoreNotFound(err error) error {
	if errors.Is(err, garrison.ErrNotFound) {
		return nil
	}
	return err
}

// resolveWith settles a creating instance against a provider listing.
func (r *Reconciler) resolveWith(ctx context.Context, env *poolEnv, in garrison.Instance, list []provider.ProviderInstance) {
	for _, pi := range list {
		if pi.Name == in.Name {
			r.finishCreate(ctx, env, in, pi, nil)
			return
		}
	}
	r.storeFailure(ctx, env, in, creating, []byte("the create call was interrupted (restart) and the provider has no such instance"), nil)
}

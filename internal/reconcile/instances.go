package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// errPoolGone says the pool of an instance no longer exists.
var errPoolGone = errors.New("reconcile: the instance's pool is gone")

// outcome is what one instance step did: whether it changed anything the pool's plan
// reads (then the pool is looked at again), and when the instance wants another look.
type outcome struct {
	acted bool
	res   workqueue.Result
}

// done is the outcome of a step that changed the instance.
var done = outcome{acted: true}

// reconcileInstance is the instances controller's handler for one instance key. It
// re-reads the instance, its pool, entity and controller, and performs the next step for
// the instance's status: pending_create is provisioned, creating (left by a process that
// died mid-create) is resolved from the provider, error is retried when due, and the
// deletion statuses are deleted. A step that changed something notifies the pool.
func (r *Reconciler) reconcileInstance(ctx context.Context, name string) (workqueue.Result, error) {
	in, err := r.o.Store.Instance(ctx, name)
	if errors.Is(err, garrison.ErrNotFound) {
		return workqueue.Result{}, nil // deleted meanwhile
	}
	if err != nil {
		return workqueue.Result{}, fmt.Errorf("reconcile: read instance %s: %w", name, err)
	}
	env, err := r.loadInstanceEnv(ctx, in)
	switch {
	case errors.Is(err, errPoolGone):
		return workqueue.Result{}, r.orphaned(ctx, in)
	case errors.Is(err, garrison.ErrNotFound):
		return workqueue.Result{}, workqueue.Terminal(err) // configuration: the pool reports it
	case err != nil:
		return workqueue.Result{}, err
	}
	ctx, release, held, err := r.claim(ctx, env.pool.ID)
	defer release()
	if err != nil || !held {
		return r.notHeld(in), err // another replica's pool: its reconciles hand the instance out there
	}
	env.waiter = r.instanceWaiter(name)
	out, err := r.step(ctx, env, in)
	if (out.acted || err != nil) && in.ScaleSetID == 0 {
		r.pools.Add(in.PoolID)
	}
	if out.acted && err == nil && in.ScaleSetID != 0 && out.res.RequeueAfter == 0 {
		out.res = lookAgain
	}
	return out.res, err
}

// notHeld is the result of a step of an instance whose pool another replica holds. A
// pool's holder hands its instances out from its reconciles, so the step is dropped. A
// scale set's runner has no such reconciles: the replica told of it (the one whose
// listener or API changed it) may not hold the scale set's pool, and its holder is not
// told. So a scale-set runner with a step to take is looked at again after half a lease,
// until its holder took the step or the claim lapsed and this replica takes it.
func (r *Reconciler) notHeld(in garrison.Instance) workqueue.Result {
	if in.ScaleSetID == 0 || !needsStep(in.Status) {
		return workqueue.Result{}
	}
	return workqueue.Result{RequeueAfter: r.o.LeaseTTL / 2}
}

// needsStep reports whether an instance in status st has a step of its own to take
// (step acts on it).
func needsStep(st garrison.InstanceStatus) bool {
	switch st {
	case garrison.InstancePendingCreate, garrison.InstanceCreating, garrison.InstanceError,
		garrison.InstancePendingDelete, garrison.InstancePendingForceDelete, garrison.InstanceDeleting:
		return true
	}
	return false
}

// step performs the next step of the instance for its status.
func (r *Reconciler) step(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	switch in.Status {
	case garrison.InstancePendingCreate:
		return r.provision(ctx, env, in)
	case garrison.InstanceCreating:
		return r.resolve(ctx, env, in)
	case garrison.InstanceError:
		return r.retry(ctx, env, in)
	case garrison.InstancePendingDelete, garrison.InstancePendingForceDelete, garrison.InstanceDeleting:
		return r.remove(ctx, env, in)
	}
	return outcome{}, nil // running, stopped, unknown: the pool's plan decides
}

// loadInstanceEnv reads what a step of the instance acts on: its pool, the pool's entity
// and provider, and the controller. A missing pool gives errPoolGone.
func (r *Reconciler) loadInstanceEnv(ctx context.Context, in garrison.Instance) (*poolEnv, error) {
	if in.ScaleSetID != 0 {
		return r.loadScaleSetEnv(ctx, in.ScaleSetID)
	}
	env, err := r.loadPool(ctx, in.PoolID)
	if env == nil && errors.Is(err, garrison.ErrNotFound) {
		return nil, errPoolGone
	}
	return env, err
}

// orphaned handles an instance whose pool is gone: a pending_create one was never made
// and its record is removed; any other is left for people to see (a pool with instances
// cannot be deleted, so this is rare).
func (r *Reconciler) orphaned(ctx context.Context, in garrison.Instance) error {
	if in.Status != garrison.InstancePendingCreate || in.AgentID != 0 {
		r.log.Warn("reconcile: instance of a pool that is gone", slog.String("instance", in.Name), slog.String("pool", in.PoolID),
			slog.String("reconcile_id", workqueue.ReconcileID(ctx)))
		return nil
	}
	if err := r.o.Store.DeleteInstance(ctx, in.Name); err != nil {
		return fmt.Errorf("reconcile: remove instance %s of a deleted pool: %w", in.Name, err)
	}
	r.log.Info("reconcile: instance request dropped: its pool is gone", slog.String("instance", in.Name), slog.String("pool", in.PoolID))
	return nil
}

// instanceBusy reports whether the instances controller holds a step of the instance
// that is queued, running or waiting for a budget.
func (r *Reconciler) instanceBusy(name string) bool {
	return r.instances.Busy(name) || r.budgets.isWaiting(r.instanceWaiter(name).id)
}

// instanceWaiter is an instance key waiting for a budget.
func (r *Reconciler) instanceWaiter(name string) waiter {
	return waiter{id: "instances/" + name, wake: func() { r.instances.Add(name) }}
}

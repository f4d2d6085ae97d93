package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// The instances controller also takes the runners of scale sets through their life
// (rest-api-2 SS-11): their scale set's listener (package scaleset) stores them
// pending_create with their JIT configuration and hands them over with NotifyInstances.
// A step reads the scale set's runner definition as a pool (garrison.ScaleSet.AsPool,
// whose id is GARM's <name>-<entity id>) and does the rest as for a pool's runner; it
// registers no JIT runner and tells no pool.

// NotifyInstances asks the instances controller to take the next step of the named
// instances (the runners of scale sets; pools hand theirs out themselves).
func (r *Reconciler) NotifyInstances(names ...string) {
	for _, n := range names {
		r.instances.Add(n)
	}
}

// loadScaleSetEnv reads what a step on a runner of the scale set acts on. A missing scale
// set gives errPoolGone.
func (r *Reconciler) loadScaleSetEnv(ctx context.Context, id uint) (*poolEnv, error) {
	ss, err := r.o.Store.ScaleSet(ctx, id)
	if errors.Is(err, garrison.ErrNotFound) {
		return nil, errPoolGone
	}
	if err != nil {
		return nil, fmt.Errorf("reconcile: read scale set %d: %w", id, err)
	}
	return r.envOf(ctx, ss.AsPool())
}

// dropScaleSetJobs takes the jobs a scale set of the entity serves out of the pool's
// view: GitHub gives such a job to the scale set (its runners come from the scale set's
// listener), so no pool may make a runner for it, even one whose labels match. Each such
// job's ledger reason says which scale set serves it (job list).
func (r *Reconciler) dropScaleSetJobs(ctx context.Context, env *poolEnv) {
	if len(env.jobs) == 0 {
		return
	}
	sets, err := r.o.Store.ListScaleSets(ctx, store.ScaleSetFilter{EntityID: env.entity.ID})
	if err != nil {
		r.log.Warn("reconcile: list scale sets of the entity", env.attrs(slog.Any("err", err))...)
		return
	}
	if len(sets) == 0 {
		return
	}
	kept := make([]garrison.Job, 0, len(env.jobs))
	for _, j := range env.jobs {
		i := slices.IndexFunc(sets, func(ss garrison.ScaleSet) bool { return ss.Serves(j.Labels) })
		if i < 0 {
			kept = append(kept, j)
			continue
		}
		if reason := garrison.ReasonScaleSet(sets[i].Name); j.Reason != reason {
			r.writeReason(ctx, env, j.ID, reason)
		}
	}
	env.jobs = kept
}

// dropUnregistered removes the request of a scale set's runner whose JIT registration
// never completed (the listener stores the instance before it registers the runner, and
// hands it over once the runner is recorded on it): the process that registered it died
// in between, or the service refused it. A forge runner of its name, left by a
// registration that went through, is deregistered first; the listener makes a new runner
// if one is still wanted.
func (r *Reconciler) dropUnregistered(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	release, ok := r.takeSlot(env, budgetCredentials)
	if !ok {
		return outcome{}, nil
	}
	err := r.removeUnregisteredRunner(ctx, env, in.Name)
	release()
	var rl *garrison.RateLimitError
	if errors.As(err, &rl) {
		return outcome{res: r.poolRateLimited(env, rl)}, nil
	}
	if err != nil {
		return outcome{}, fmt.Errorf("reconcile: drop unregistered runner %s: %w", in.Name, err)
	}
	if err := r.o.Store.DeleteInstance(ctx, in.Name); err != nil {
		return outcome{}, fmt.Errorf("reconcile: drop unregistered runner %s: %w", in.Name, err)
	}
	r.log.Info("instance request dropped: its runner registration did not complete", env.attrs(slog.String("instance", in.Name))...)
	return done, nil
}

func (r *Reconciler) removeUnregisteredRunner(ctx context.Context, env *poolEnv, name string) error {
	f, err := env.getForge(ctx)
	if err != nil {
		return err
	}
	return r.removeRunnerNamed(ctx, env, f, name)
}

// lookAgain is the result of a step on a scale set's runner that acted: a scale set has
// no pool plan to take the runner's next step (a create resolved as failed waits for its
// retry, a retry past the limit is retired, a retired runner is deleted), so the
// instances controller looks at the runner again until a step does nothing.
var lookAgain = workqueue.Result{RequeueAfter: time.Millisecond}

// retireScaleSetRunner retires a scale set's runner in error that is not retried (past
// the attempt limit, or its scale set disabled): counted as live, it would hold its slot
// in the scale set forever. Its record is kept as history.
func (r *Reconciler) retireScaleSetRunner(ctx context.Context, env *poolEnv, in garrison.Instance) outcome {
	if !r.markRetire(ctx, env, in.Name, plan.ExhaustedReason(&in, &env.pool, r.o.Policy)) {
		return outcome{}
	}
	return done
}

package reconcile

import (
	"context"
	"fmt"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/store"
)

// RotateOutdated marks for deletion the pool's idle runners made from an older pool
// generation (`garrison pool runner rotate --outdated`) and returns how many it marked.
// Busy runners are left to finish; the pool refills with runners of the current
// definition.
func (r *Reconciler) RotateOutdated(ctx context.Context, poolID string) (int, error) {
	env, err := r.load(ctx, poolID)
	if err != nil {
		return 0, err
	}
	rows, err := r.o.Store.ListInstances(ctx, store.InstanceFilter{PoolID: poolID})
	if err != nil {
		return 0, fmt.Errorf("reconcile: list instances: %w", err)
	}
	n := 0
	for _, in := range rows {
		if in.Status != garrison.InstanceRunning || in.RunnerStatus != garrison.RunnerIdle || !plan.Outdated(&in, &env.pool) {
			continue
		}
		reason := fmt.Sprintf("rotated: made from pool generation %d, the pool is at %d", in.Generation, env.pool.Generation)
		if r.markDelete(ctx, env, in.Name, reason) {
			n++
		}
	}
	r.Notify(poolID)
	return n, nil
}

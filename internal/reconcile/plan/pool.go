package plan

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/garrison-ci/garrison"
)

// keepMinIdle plans new runners until the pool has min_idle_runners unbound runners up
// or coming, within max_runners. A failed create that will be retried counts as coming:
// otherwise a broken provider would get one more failing instance per retry. A disabled
// pool gets none.
func (p *planner) keepMinIdle() {
	t := p.target
	if !t.pool.Enabled {
		return
	}
	for n := int(t.pool.MinIdleRunners) - t.free() - t.retries; n > 0 && t.room() > 0; n-- {
		t.creates++
		p.acts.Creates = append(p.acts.Creates, Create{Reason: "keep min idle runners"})
	}
}

// scaleDown removes idle runners beyond min_idle_runners (all of them when the pool is
// disabled), longest idle first, once they have been idle for the grace period. Busy and
// booting runners are never removed for scale-down.
func (p *planner) scaleDown() {
	t := p.target
	keep := int(t.pool.MinIdleRunners)
	if !t.pool.Enabled {
		keep = 0
	}
	surplus := t.free() - keep
	idle := slices.Clone(t.idle)
	slices.SortFunc(idle, func(a, b *garrison.Instance) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), cmp.Compare(a.Name, b.Name))
	})
	for _, in := range idle {
		if surplus <= 0 {
			return
		}
		if p.obs.Busy[in.Name] {
			continue
		}
		if age := p.obs.Now.Sub(in.UpdatedAt); age < p.pol.ScaleDownGrace {
			p.wake(p.pol.ScaleDownGrace - age)
			continue
		}
		surplus--
		p.delete(in, "surplus idle runner")
	}
}

// lifecycle moves each instance of the pool along: deletions, creates to resume or
// resolve, failed creates to retry, and runners that finished, failed, never came up or
// are outdated.
func (p *planner) lifecycle() {
	for i := range p.obs.Instances {
		in := &p.obs.Instances[i]
		if in.PoolID != p.target.pool.ID {
			continue
		}
		if p.obs.Busy[in.Name] {
			continue
		}
		switch in.Status {
		case garrison.InstancePendingDelete, garrison.InstancePendingForceDelete, garrison.InstanceDeleting:
			p.deleteWhenDue(in)
		case garrison.InstancePendingCreate:
			p.acts.Resumes = append(p.acts.Resumes, in.Name)
		case garrison.InstanceCreating:
			p.acts.Resolves = append(p.acts.Resolves, in.Name)
		case garrison.InstanceError:
			p.retryWhenDue(in)
		case garrison.InstanceDeleted: // history: reap
		case garrison.InstanceRunning, garrison.InstanceStopped, garrison.InstanceUnknown:
			p.checkRunner(in)
		}
	}
}

// deleteWhenDue deletes an instance marked for deletion. (After a failed attempt the
// instances controller holds the next one back: an earlier ask waits for it.)
func (p *planner) deleteWhenDue(in *garrison.Instance) {
	p.acts.Deletes = append(p.acts.Deletes, Delete{
		Instance: in.Name, Force: in.Status == garrison.InstancePendingForceDelete, Reason: "marked for deletion",
	})
}

// retryWhenDue retries a failed create after its backoff, up to the attempt limit; past
// the limit (or in a disabled pool) the instance is retired.
func (p *planner) retryWhenDue(in *garrison.Instance) {
	due, ok := RetryDue(in, p.target.pool, p.pol)
	if !ok {
		p.retire(in, ExhaustedReason(in, p.target.pool, p.pol))
		return
	}
	if p.obs.Now.Before(due) {
		p.wake(due.Sub(p.obs.Now))
		return
	}
	p.acts.Retries = append(p.acts.Retries, in.Name)
}

// checkRunner deletes instances whose runner finished or failed, replaces idle runners
// of an older pool generation, and reaps runners that did not come up in time.
func (p *planner) checkRunner(in *garrison.Instance) {
	switch in.RunnerStatus {
	case garrison.RunnerTerminated:
		p.delete(in, "runner finished its job")
	case garrison.RunnerFailed:
		p.retire(in, "runner failed to install")
	case garrison.RunnerIdle:
		if Outdated(in, p.target.pool) && !p.bound[in.ID] && in.Status == garrison.InstanceRunning {
			p.delete(in, fmt.Sprintf("outdated: made from pool generation %d, the pool is at %d", in.Generation, p.target.pool.Generation))
		}
	case "", garrison.RunnerPending, garrison.RunnerInstalling:
		p.reapIfLate(in)
	}
}

// reapIfLate deletes a runner with no sign of life for the pool's bootstrap timeout.
func (p *planner) reapIfLate(in *garrison.Instance) {
	if in.Status != garrison.InstanceRunning {
		return
	}
	limit := time.Duration(p.target.pool.BootstrapTimeout()) * time.Minute
	if late := p.obs.Now.Sub(in.UpdatedAt); late < limit {
		p.wake(limit - late)
		return
	}
	p.retire(in, fmt.Sprintf("runner did not come up within the bootstrap timeout (%d minutes)", p.target.pool.BootstrapTimeout()))
}

// ExhaustedReason says why an instance in error is not retried.
func ExhaustedReason(in *garrison.Instance, pool *garrison.Pool, pol Policy) string {
	pol = pol.WithDefaults()
	if pool != nil && !pool.Enabled && in.CreateAttempt < pol.MaxCreateAttempts {
		return "the pool is disabled: its failed create is not retried"
	}
	return fmt.Sprintf("create attempts exhausted (%d of %d failed): %s", in.CreateAttempt, pol.MaxCreateAttempts, in.ProviderFault)
}

// delete plans the removal of a live instance.
func (p *planner) delete(in *garrison.Instance, reason string) {
	p.acts.Deletes = append(p.acts.Deletes, Delete{Instance: in.Name, Mark: true, Reason: reason})
}

// RetryDue returns when the failed create of an instance in error is retried; false when
// it is not: the attempt limit is reached or the pool is disabled.
func RetryDue(in *garrison.Instance, pool *garrison.Pool, pol Policy) (time.Time, bool) {
	if in.Status != garrison.InstanceError || classify(in, pool, pol.WithDefaults()) != supplyRetry {
		return time.Time{}, false
	}
	return in.UpdatedAt.Add(pol.WithDefaults().RetryDelay(in.CreateAttempt)), true
}

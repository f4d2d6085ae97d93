package plan

import (
	"cmp"
	"slices"
	"time"

	"github.com/garrison-ci/garrison"
)

// supply classifies an instance for planning.
type supply int

const (
	supplyNone    supply = iota // leaving, failed or unusable
	supplyBooting               // on its way up: can still take any job
	supplyIdle                  // up and waiting for a job
	supplyBusy                  // running a job
	supplyRetry                 // create failed, another attempt will come
)

// classify tells what an instance offers. Outdated idle runners offer nothing: they are
// being replaced.
func classify(i *garrison.Instance, pool *garrison.Pool, pol Policy) supply {
	switch i.Status {
	case garrison.InstancePendingCreate, garrison.InstanceCreating:
		if i.RunnerStatus == garrison.RunnerTerminated {
			return supplyNone
		}
		return supplyBooting
	case garrison.InstanceError:
		if pool != nil && pool.Enabled && i.CreateAttempt < pol.MaxCreateAttempts {
			return supplyRetry
		}
		return supplyNone
	case garrison.InstanceRunning:
		return runningSupply(i, pool)
	}
	return supplyNone
}

// runningSupply classifies a running instance by its runner.
func runningSupply(i *garrison.Instance, pool *garrison.Pool) supply {
	switch i.RunnerStatus {
	case "", garrison.RunnerPending, garrison.RunnerInstalling:
		return supplyBooting
	case garrison.RunnerIdle:
		if Outdated(i, pool) {
			return supplyNone
		}
		return supplyIdle
	case garrison.RunnerActive:
		return supplyBusy
	}
	return supplyNone
}

// Outdated reports whether the instance was made from an older pool definition.
func Outdated(i *garrison.Instance, pool *garrison.Pool) bool {
	return pool != nil && i.Generation < pool.Generation
}

// poolState is the planner's running tally for one pool of the entity.
type poolState struct {
	pool    *garrison.Pool
	total   int                  // instances not deleted: what max_runners bounds
	booting []*garrison.Instance // booting and bound to no job
	idle    []*garrison.Instance // idle and bound to no job
	retries int                  // unbound instances whose failed create will be retried
	creates int                  // new runners planned for jobs
	health  poolHealth
	backoff *Backoff // the failure streak; nil when healthy
	limit   int      // new runners allowed now by the backoff; -1: no limit
}

// room is how many more runners the pool may be given now.
func (s *poolState) room() int {
	n := int(s.pool.MaxRunners) - s.total - s.creates
	if s.limit >= 0 {
		n = min(n, s.limit-s.creates)
	}
	return n
}

// free is how many unbound runners are up or coming.
func (s *poolState) free() int { return len(s.booting) + len(s.idle) }

// planner holds one Plan call's working state.
type planner struct {
	spec   Spec
	obs    Observed
	pol    Policy
	pools  []*poolState // entity pools by priority (highest first), then id
	target *poolState
	byPool map[string]*poolState
	byID   map[string]*garrison.Instance
	bound  map[string]bool // instance ids serving a queued job
	served map[int64]bool  // queued jobs a bound instance serves
	// candCache caches candidates by label set.
	candCache map[string]candidateSet
	acts      Actions
}

func newPlanner(spec Spec, obs Observed) *planner {
	p := &planner{spec: spec, obs: obs, pol: spec.Policy, byID: map[string]*garrison.Instance{}, bound: map[string]bool{}, served: map[int64]bool{}, candCache: map[string]candidateSet{}}
	byPool := map[string]*poolState{}
	p.byPool = byPool
	for i := range spec.Pools {
		s := &poolState{pool: &spec.Pools[i]}
		p.pools = append(p.pools, s)
		byPool[s.pool.ID] = s
	}
	if byPool[spec.Pool.ID] == nil {
		s := &poolState{pool: &spec.Pool}
		p.pools = append(p.pools, s)
		byPool[s.pool.ID] = s
	}
	p.target = byPool[spec.Pool.ID]
	p.target.pool = &spec.Pool
	slices.SortFunc(p.pools, func(a, b *poolState) int {
		return cmp.Or(cmp.Compare(b.pool.Priority, a.pool.Priority), cmp.Compare(a.pool.ID, b.pool.ID))
	})
	for i := range obs.Instances {
		in := &obs.Instances[i]
		p.byID[in.ID] = in
		if s := byPool[in.PoolID]; s != nil {
			s.health.see(in)
			if in.Status != garrison.InstanceDeleted {
				s.total++
			}
		}
	}
	for _, s := range p.pools {
		s.backoff, s.limit = s.health.backoff(obs.Now, obs.LastUp[s.pool.ID], p.pol)
	}
	p.bindJobs(byPool)
	return p
}

// bindJobs marks the runners made for still-queued jobs, and lists the free ones.
func (p *planner) bindJobs(byPool map[string]*poolState) {
	for _, j := range p.obs.Jobs {
		if in := p.byID[j.LockedBy]; in != nil && !p.bound[in.ID] && p.serves(in) {
			p.bound[in.ID] = true
			p.served[j.ID] = true
		}
	}
	for i := range p.obs.Instances {
		in := &p.obs.Instances[i]
		s := byPool[in.PoolID]
		if s == nil || p.bound[in.ID] {
			continue
		}
		switch classify(in, s.pool, p.pol) {
		case supplyBooting:
			s.booting = append(s.booting, in)
		case supplyIdle:
			s.idle = append(s.idle, in)
		case supplyRetry:
			s.retries++
		}
	}
}

// serves reports whether an instance bound to a job will still run it: it is coming up,
// idle, or its failed create will be retried. A runner that took another job (busy),
// finished or failed no longer serves the job it was made for: that job is displaced.
func (p *planner) serves(in *garrison.Instance) bool {
	var pool *garrison.Pool
	if s := p.byPool[in.PoolID]; s != nil {
		pool = s.pool
	}
	switch classify(in, pool, p.pol) {
	case supplyBooting, supplyIdle, supplyRetry:
		return true
	}
	return false
}

// wake asks for another look after d (the earliest wish wins).
func (p *planner) wake(d time.Duration) {
	if d <= 0 {
		d = time.Second
	}
	if p.acts.RequeueAfter == 0 || d < p.acts.RequeueAfter {
		p.acts.RequeueAfter = d
	}
}

package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/garrison-ci/garrison"
)

// assignJobs gives every queued job that no runner serves yet a runner: a booting one
// nobody claimed, a matching idle one (only while the job is younger than the minimum
// age), or a new one in the pool chosen by priority and balancer. Every pool of the
// entity runs the same computation on the same snapshot, so they agree on who creates
// what; each keeps only its own share.
func (p *planner) assignJobs() {
	for _, j := range p.waitingJobs() {
		p.assign(j)
	}
}

// waitingJobs returns the queued, unexpired jobs no runner serves, oldest first. It
// points into the observed jobs (shared, read-only), which are usually sorted already.
func (p *planner) waitingJobs() []*garrison.Job {
	out := make([]*garrison.Job, 0, len(p.obs.Jobs))
	for i := range p.obs.Jobs {
		j := &p.obs.Jobs[i]
		switch {
		case j.Action != garrison.JobQueued || p.served[j.ID]:
		case p.obs.Now.Sub(j.CreatedAt) > p.pol.JobTTL:
			p.unserved(j, fmt.Sprintf("queued for more than %v; the forge has dropped it", p.pol.JobTTL))
		default:
			out = append(out, j)
		}
	}
	byAge := func(a, b *garrison.Job) int { return CompareJobAge(*a, *b) }
	if !slices.IsSortedFunc(out, byAge) {
		slices.SortFunc(out, byAge)
	}
	return out
}

// assign finds a runner for one job.
func (p *planner) assign(j *garrison.Job) {
	cands, reason := p.candidates(j)
	if len(cands) == 0 {
		p.unserved(j, reason)
		return
	}
	if s := choose(cands, j, p.spec.Balancer, func(s *poolState) bool { return len(s.booting) > 0 }); s != nil {
		in := s.booting[0]
		s.booting = s.booting[1:]
		if s == p.target {
			p.acts.Locks = append(p.acts.Locks, Lock{JobID: j.ID, InstanceID: in.ID})
		}
		return
	}
	if age := p.obs.Now.Sub(j.CreatedAt); age < p.spec.MinimumJobAge {
		if s := choose(cands, j, p.spec.Balancer, func(s *poolState) bool { return len(s.idle) > 0 }); s != nil {
			s.idle = s.idle[1:] // that runner will most likely take it
			p.wake(p.spec.MinimumJobAge - age)
			return
		}
	}
	if s := choose(cands, j, p.spec.Balancer, func(s *poolState) bool { return s.room() > 0 }); s != nil {
		s.creates++
		if s == p.target {
			p.acts.Creates = append(p.acts.Creates, Create{JobID: j.ID, Reason: fmt.Sprintf("job %d queued", j.ID)})
		}
		return
	}
	for _, s := range cands {
		if s.backoff != nil && s.limit == 0 && int(s.pool.MaxRunners)-s.total-s.creates > 0 {
			p.unserved(j, backingOff(s))
			return
		}
	}
	p.unserved(j, fmt.Sprintf("every pool matching labels %v is at max_runners", j.Labels))
}

// candidates returns the enabled pools whose tags include all the job's labels, by
// priority; with none, the reason. Results are cached per label set: jobs share few.
func (p *planner) candidates(j *garrison.Job) ([]*poolState, string) {
	key := labelKey(j.Labels)
	if c, ok := p.candCache[key]; ok {
		return c.pools, c.reason
	}
	pools, reason := p.matchPools(j)
	p.candCache[key] = candidateSet{pools, reason}
	return pools, reason
}

// candidateSet is a cached candidates answer.
type candidateSet struct {
	pools  []*poolState
	reason string
}

// labelKey identifies a label set regardless of order and case.
func labelKey(labels []string) string {
	l := make([]string, len(labels))
	for i, s := range labels {
		l[i] = strings.ToLower(s)
	}
	slices.Sort(l)
	return strings.Join(l, "\x00")
}

// matchPools computes candidates.
func (p *planner) matchPools(j *garrison.Job) ([]*poolState, string) {
	var out []*poolState
	matched := false
	for _, s := range p.pools {
		if !s.pool.HasLabels(j.Labels) {
			continue
		}
		matched = true
		if s.pool.Enabled {
			out = append(out, s)
		}
	}
	switch {
	case len(out) > 0:
		return out, ""
	case matched:
		return nil, garrison.ReasonPoolsDisabled(j.Labels)
	}
	return nil, garrison.ReasonNoPool(j.Labels)
}

// choose picks among the pools that pass ok: the highest priority first; among equals,
// the first (pack) or one chosen by the job id (roundrobin, spreading jobs evenly and
// the same way in every pool's plan).
func choose(cands []*poolState, j *garrison.Job, b garrison.Balancer, ok func(*poolState) bool) *poolState {
	var top []*poolState
	for _, s := range cands {
		if !ok(s) {
			continue
		}
		if len(top) > 0 && s.pool.Priority != top[0].pool.Priority {
			break
		}
		top = append(top, s)
	}
	switch {
	case len(top) == 0:
		return nil
	case b == garrison.Pack:
		return top[0]
	}
	n := j.ID % int64(len(top))
	if n < 0 {
		n = -n
	}
	return top[n]
}

// unserved records why a job gets no runner.
func (p *planner) unserved(j *garrison.Job, reason string) {
	p.acts.Unserved = append(p.acts.Unserved, Unserved{JobID: j.ID, Reason: reason})
}

// CompareJobAge orders jobs by creation time, then id: the order in which Plan serves
// them (Observed.Jobs sorted so saves Plan a sort).
func CompareJobAge(a, b garrison.Job) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
}

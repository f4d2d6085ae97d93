package plan

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/garrison-ci/garrison"
)

// A pool heals by itself: an instance that used up its create attempts, a runner that
// failed to install and one that missed its bootstrap timeout are retired — removed from
// the provider and the forge, their record kept as history (status deleted, runner status
// failed) that no longer counts against max_runners. Each retirement lengthens the pool's
// backoff: no new runner before the last retirement plus RetryDelay(failures), then one
// runner at a time (a probe) until a runner of the pool comes up again. The history is
// reaped after HistoryTTL, or beyond HistoryKeep records per pool.

// Backoff is a pool's failure streak: runners retired since one last came up.
type Backoff struct {
	// Failures counts the runners retired in a row.
	Failures int
	// Until is when the next runner may be made; after it, one at a time.
	Until time.Time
	// Fault is what the last retired runner failed with.
	Fault string
}

// retiring reports whether an instance was retired or is being retired: a failed runner
// on its way out or kept as history.
func retiring(in *garrison.Instance) bool {
	return in.Status.Deleting() && in.RunnerStatus == garrison.RunnerFailed
}

// cameUp reports whether the runner of an instance came up at some point.
func cameUp(in *garrison.Instance) bool {
	switch in.RunnerStatus {
	case garrison.RunnerIdle, garrison.RunnerActive, garrison.RunnerTerminated:
		return true
	}
	return false
}

// unproven reports whether an instance is on its way up, or retrying its create: a probe
// of a backing-off pool in flight.
func unproven(in *garrison.Instance) bool {
	switch in.Status {
	case garrison.InstancePendingCreate, garrison.InstanceCreating, garrison.InstanceError:
		return true
	case garrison.InstanceRunning:
		return in.RunnerStatus == "" || in.RunnerStatus == garrison.RunnerPending || in.RunnerStatus == garrison.RunnerInstalling
	}
	return false
}

// poolHealth gathers, while the planner reads the instances, what a pool's backoff is
// computed from.
type poolHealth struct {
	lastUp   time.Time            // when a runner of the pool was last seen up
	retired  []*garrison.Instance // retiring and retired instances
	unproven int
}

func (h *poolHealth) see(in *garrison.Instance) {
	switch {
	case retiring(in):
		h.retired = append(h.retired, in)
	case cameUp(in):
		if in.UpdatedAt.After(h.lastUp) {
			h.lastUp = in.UpdatedAt
		}
	}
	if unproven(in) {
		h.unproven++
	}
}

// backoff computes the pool's streak and how many runners it may be given now (-1: no
// limit but max_runners).
func (h *poolHealth) backoff(now time.Time, lastUp time.Time, pol Policy) (*Backoff, int) {
	if lastUp.After(h.lastUp) {
		h.lastUp = lastUp
	}
	var b *Backoff
	var latest time.Time
	for _, in := range h.retired {
		if !in.UpdatedAt.After(h.lastUp) {
			continue
		}
		if b == nil {
			b = &Backoff{}
		}
		b.Failures++
		if !in.UpdatedAt.Before(latest) {
			latest, b.Fault = in.UpdatedAt, string(in.ProviderFault)
		}
	}
	if b == nil {
		return nil, -1
	}
	b.Until = latest.Add(pol.RetryDelay(b.Failures))
	if now.Before(b.Until) || h.unproven > 0 {
		return b, 0
	}
	return b, 1
}

// reap lists the pool's history records to remove: older than HistoryTTL, or beyond the
// HistoryKeep newest.
func (p *planner) reap() {
	var hist []*garrison.Instance
	for i := range p.obs.Instances {
		in := &p.obs.Instances[i]
		if in.PoolID == p.target.pool.ID && in.Status == garrison.InstanceDeleted && !p.obs.Busy[in.Name] {
			hist = append(hist, in)
		}
	}
	slices.SortFunc(hist, func(a, b *garrison.Instance) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.Name, b.Name))
	})
	for i, in := range hist {
		age := p.obs.Now.Sub(in.UpdatedAt)
		if i >= p.pol.HistoryKeep || age >= p.pol.HistoryTTL {
			p.acts.Reaps = append(p.acts.Reaps, in.Name)
		} else if i == len(hist)-1 || i == p.pol.HistoryKeep-1 {
			p.wake(p.pol.HistoryTTL - age)
		}
	}
}

// retire plans taking a failed instance out of service, kept as history.
func (p *planner) retire(in *garrison.Instance, reason string) {
	if in.RunnerStatus == garrison.RunnerActive {
		return // never a busy runner
	}
	p.acts.Deletes = append(p.acts.Deletes, Delete{Instance: in.Name, Mark: true, Retire: true, Reason: reason})
}

// backingOff is the reason given to a job no pool can take because pools back off.
func backingOff(s *poolState) string {
	b := s.backoff
	return fmt.Sprintf("pool %s is backing off after %d failed runners (next runner not before %s): %s",
		s.pool.ID, b.Failures, b.Until.UTC().Format(time.RFC3339), b.Fault)
}

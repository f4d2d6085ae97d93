package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/garrison-ci/garrison"
)

// Runners stranded by a forge outage: the forge lists them offline (or not at all) while
// their instances run and garrison believes them idle. They will never take a job, yet
// they hold the pool's capacity. The repair recycles them once they have been seen so
// for Policy.StrandedAfter (plus a jitter of up to 20% per runner), at most
// Policy.StrandedPerPass per pool and pass, and never one the forge or garrison says is
// busy. What garrison saw is kept over time (offlineSince), not judged on one listing.

// offlineSince returns when this process first saw the runner offline, recording t when
// it had not; online clears it.
func (r *Reconciler) offlineSince(name string, t time.Time, online bool) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if online {
		delete(r.offline, name)
		return time.Time{}
	}
	since, ok := r.offline[name]
	if !ok {
		r.offline[name] = t
		since = t
	}
	return since
}

// strandedFor returns how long the instance's runner has been seen offline, or 0.
func (r *Reconciler) strandedFor(name string, now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if since, ok := r.offline[name]; ok {
		return now.Sub(since)
	}
	return 0
}

// recycleStranded marks for deletion the pool's idle runners the forge listing (made at
// listedAt) shows offline or lacks, once they have been so for their threshold. It
// returns how many it marked.
func (r *Reconciler) recycleStranded(ctx context.Context, env *poolEnv, runners []garrison.Runner, listedAt time.Time) int {
	byName := make(map[string]garrison.Runner, len(runners))
	for _, rn := range runners {
		byName[rn.Name] = rn
	}
	now, marked := r.o.Now(), 0
	for _, in := range env.instances {
		if in.PoolID != env.pool.ID {
			continue
		}
		rn, listed := byName[in.Name]
		alive := in.Status == garrison.InstanceRunning && in.RunnerStatus == garrison.RunnerIdle
		if !alive || (listed && rn.Status != "offline") {
			r.offlineSince(in.Name, listedAt, true)
			continue
		}
		since := r.offlineSince(in.Name, listedAt, false) // busy or not: see refusedAsBusy
		if rn.Busy || now.Sub(since) < garrison.StrandedThreshold(in.Name, r.o.Policy.StrandedAfter) || marked >= r.o.Policy.StrandedPerPass {
			continue
		}
		what := "offline"
		if !listed {
			what = "unknown"
		}
		reason := fmt.Sprintf("stranded: %s on the forge for %v while its instance runs", what, now.Sub(since).Round(time.Second))
		if r.markDelete(ctx, env, in.Name, reason) {
			marked++
			r.instances.Add(in.Name)
		}
	}
	return marked
}

// refusedAsBusy reports whether a failed deregistration is the forge refusing because it
// believes the runner busy, while garrison has seen the runner offline for more than
// twice the stranded threshold: then garrison trusts what it observed over that time and
// deletes the instance anyway (the forge drops a dead runner of its own accord, and the
// repair removes it if not).
func (r *Reconciler) refusedAsBusy(in garrison.Instance, err error) bool {
	if !errors.Is(err, garrison.ErrUnprocessable) && !errors.Is(err, garrison.ErrConflict) {
		return false
	}
	return r.strandedFor(in.Name, r.o.Now()) > 2*r.o.Policy.StrandedAfter
}

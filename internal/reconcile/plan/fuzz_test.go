package plan

import (
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// fuzzBytes hands out the fuzzer's bytes as small numbers; zero once they run out.
type fuzzBytes struct {
	b []byte
}

func (f *fuzzBytes) next(n int) int {
	if len(f.b) == 0 || n <= 0 {
		return 0
	}
	v := int(f.b[0]) % n
	f.b = f.b[1:]
	return v
}

func (f *fuzzBytes) bool() bool { return f.next(2) == 1 }

var (
	fuzzLabels   = []string{"self-hosted", "linux", "x64", "gpu", "arm64"}
	fuzzStatuses = []garrison.InstanceStatus{garrison.InstanceRunning, garrison.InstancePendingCreate,
		garrison.InstanceCreating, garrison.InstanceError, garrison.InstancePendingDelete, garrison.InstancePendingForceDelete,
		garrison.InstanceDeleting, garrison.InstanceDeleted, garrison.InstanceStopped, garrison.InstanceUnknown}
	fuzzRunners = []garrison.RunnerStatus{"", garrison.RunnerPending, garrison.RunnerInstalling, garrison.RunnerIdle,
		garrison.RunnerActive, garrison.RunnerTerminated, garrison.RunnerFailed}
)

// labels picks a non-empty subset of the label vocabulary.
func (f *fuzzBytes) labels() []string {
	mask := f.next(1<<len(fuzzLabels)-1) + 1
	var out []string
	for i, l := range fuzzLabels {
		if mask&(1<<i) != 0 {
			out = append(out, l)
		}
	}
	return out
}

// fuzzState builds one entity's pools, instances, jobs and busy set from the bytes.
func fuzzState(f *fuzzBytes) ([]garrison.Pool, Observed, garrison.Balancer, time.Duration) {
	pools := make([]garrison.Pool, 1+f.next(4))
	for i := range pools {
		p := garrison.Pool{ID: fmt.Sprintf("p%d", i), EntityID: "ent", MinIdleRunners: uint(f.next(4)),
			MaxRunners: uint(f.next(6)), Enabled: f.next(4) != 0, Priority: uint(f.next(3)),
			Generation: uint64(1 + f.next(2)), RunnerBootstrapTimeout: uint(f.next(30)),
			Tags: garrison.TagsFromNames(f.labels())}
		pools[i] = p
	}
	obs := Observed{Now: t0, Busy: map[string]bool{}}
	for i := range f.next(24) {
		// Pool index len(pools) is an instance of a pool that is not the entity's.
		pool := fmt.Sprintf("p%d", f.next(len(pools)+1))
		in := inst(pool, fmt.Sprintf("i%d", i), fuzzStatuses[f.next(len(fuzzStatuses))],
			fuzzRunners[f.next(len(fuzzRunners))], time.Duration(f.next(40))*time.Minute)
		in.CreateAttempt, in.Generation = 1+f.next(6), uint64(1+f.next(2))
		obs.Instances = append(obs.Instances, in)
		if f.next(5) == 0 {
			obs.Busy[in.Name] = true
		}
	}
	for i := range f.next(16) {
		j := queued(int64(i+1), time.Duration(f.next(90))*time.Minute*time.Duration(1+f.next(20)), f.labels()...)
		if f.next(8) == 0 {
			j.Action = garrison.JobInProgress
		}
		if n := len(obs.Instances); n > 0 && f.bool() {
			j.LockedBy = obs.Instances[f.next(n)].ID
		}
		obs.Jobs = append(obs.Jobs, j)
	}
	balancer := garrison.RoundRobin
	if f.bool() {
		balancer = garrison.Pack
	}
	return pools, obs, balancer, time.Duration(f.next(3)) * 30 * time.Second
}

// FuzzPlan runs every pool's plan on one random snapshot of an entity and checks the
// invariants no state may break: no pool above max_runners, no busy runner deleted, no
// instance acted on twice or outside its pool, no job given two runners.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 1, 3, 1, 0, 1, 5, 1, 2, 4, 1, 0, 1, 3, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("\x03\x02\x05\x01\x00\x00\x1f\x00\x04\x01\x02\x10\x0a\x00\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pools, obs, balancer, minAge := fuzzState(&fuzzBytes{b: data})
		byName := map[string]garrison.Instance{}
		byID := map[string]garrison.Instance{}
		for _, in := range obs.Instances {
			byName[in.Name], byID[in.ID] = in, in
		}
		runners := map[int64]int{} // job -> runners planned for it across the pools
		for _, p := range pools {
			acts := Plan(Spec{Pool: p, Pools: pools, Balancer: balancer, MinimumJobAge: minAge}, obs)
			checkWithinMax(t, p, obs, acts)
			checkOwnInstances(t, p, obs, byName, byID, acts)
			for _, c := range acts.Creates {
				if c.JobID != 0 {
					runners[c.JobID]++
				}
			}
			for _, l := range acts.Locks {
				runners[l.JobID]++
			}
		}
		checkOneRunnerPerJob(t, pools, obs, byID, runners)
	})
}

// checkWithinMax: a pool's creates never take it above max_runners.
func checkWithinMax(t *testing.T, p garrison.Pool, obs Observed, acts Actions) {
	t.Helper()
	total := 0
	for _, in := range obs.Instances {
		if in.PoolID == p.ID && in.Status != garrison.InstanceDeleted {
			total++
		}
	}
	if room := max(int(p.MaxRunners)-total, 0); len(acts.Creates) > room {
		t.Fatalf("pool %s (max %d, %d instances) plans %d creates", p.ID, p.MaxRunners, total, len(acts.Creates))
	}
	if !p.Enabled && len(acts.Creates) > 0 {
		t.Fatalf("disabled pool %s plans %d creates", p.ID, len(acts.Creates))
	}
	if b := acts.Backoff; b != nil {
		if obs.Now.Before(b.Until) && len(acts.Creates) > 0 {
			t.Fatalf("pool %s backs off until %v but plans %d creates", p.ID, b.Until, len(acts.Creates))
		}
		if len(acts.Creates) > 1 {
			t.Fatalf("backing-off pool %s plans %d creates, want one probe at most", p.ID, len(acts.Creates))
		}
	}
}

// checkOwnInstances: every action names an instance of the pool with no operation in
// flight, at most once, and a live instance is never deleted while its runner is busy.
func checkOwnInstances(t *testing.T, p garrison.Pool, obs Observed, byName, byID map[string]garrison.Instance, acts Actions) {
	t.Helper()
	seen := map[string]string{}
	own := func(what, name string) garrison.Instance {
		in, ok := byName[name]
		switch {
		case !ok || in.PoolID != p.ID:
			t.Fatalf("pool %s: %s of %q, which is not its instance", p.ID, what, name)
		case obs.Busy[name]:
			t.Fatalf("pool %s: %s of %q, which has an operation in flight", p.ID, what, name)
		case seen[name] != "":
			t.Fatalf("pool %s: %s and %s of %q", p.ID, seen[name], what, name)
		}
		seen[name] = what
		return in
	}
	for _, d := range acts.Deletes {
		in := own("delete", d.Instance)
		if d.Mark && in.RunnerStatus == garrison.RunnerActive {
			t.Fatalf("pool %s: deletes %s whose runner is busy", p.ID, in.Name)
		}
		if !d.Mark && !in.Status.Deleting() {
			t.Fatalf("pool %s: deletes %s (%s) without marking it", p.ID, in.Name, in.Status)
		}
	}
	for _, n := range acts.Retries {
		own("retry", n)
	}
	for _, n := range acts.Reaps {
		if in := own("reap", n); in.Status != garrison.InstanceDeleted {
			t.Fatalf("pool %s: reaps %s, which is %s, not history", p.ID, n, in.Status)
		}
	}
	for _, n := range acts.Resumes {
		own("resume", n)
	}
	for _, n := range acts.Resolves {
		own("resolve", n)
	}
	for _, l := range acts.Locks {
		if in, ok := byID[l.InstanceID]; !ok || in.PoolID != p.ID {
			t.Fatalf("pool %s: locks job %d to %q, not its instance", p.ID, l.JobID, l.InstanceID)
		}
	}
}

// checkOneRunnerPerJob: across the entity's pools a job gets at most one new or claimed
// runner, and none when a runner made for it still serves it.
func checkOneRunnerPerJob(t *testing.T, pools []garrison.Pool, obs Observed, byID map[string]garrison.Instance, runners map[int64]int) {
	t.Helper()
	pol := Policy{}.WithDefaults()
	poolOf := map[string]*garrison.Pool{}
	for i := range pools {
		poolOf[pools[i].ID] = &pools[i]
	}
	for _, j := range obs.Jobs {
		n := runners[j.ID]
		if n > 1 {
			t.Fatalf("job %d gets %d runners", j.ID, n)
		}
		if n > 0 && j.Action != garrison.JobQueued {
			t.Fatalf("job %d is %s and gets a runner", j.ID, j.Action)
		}
		in, ok := byID[j.LockedBy]
		if !ok || n == 0 || poolOf[in.PoolID] == nil || !servesLock(&in, poolOf[in.PoolID], pol) {
			continue
		}
		if !lockTakenByEarlierJob(obs.Jobs, j, in.ID) {
			t.Fatalf("job %d has runner %s coming and gets another", j.ID, in.Name)
		}
	}
}

// servesLock reports whether an instance a job is locked to still serves it.
func servesLock(in *garrison.Instance, p *garrison.Pool, pol Policy) bool {
	switch classify(in, p, pol) {
	case supplyBooting, supplyIdle, supplyRetry:
		return true
	}
	return false
}

// lockTakenByEarlierJob reports whether another job, earlier in the list, is locked to the
// same instance (one instance serves one job; the later ones are displaced).
func lockTakenByEarlierJob(jobs []garrison.Job, j garrison.Job, instanceID string) bool {
	for _, o := range jobs {
		if o.ID == j.ID {
			return false
		}
		if o.LockedBy == instanceID {
			return true
		}
	}
	return false
}

package testbed_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestE2EStrandedRunnersRecycled plays a forge outage that strands runners (the forge
// lists them offline for good; their processes and instances live on), as GitHub's of
// 2026-08-06 did. One runner is busy with a long job when it strikes. Jobs queued during
// the outage must be served once the stranded idle runners are recycled — within the
// threshold plus a repair pass — and the busy runner is never deleted while its job
// runs.
func TestE2EStrandedRunnersRecycled(t *testing.T) {
	const threshold, repair = 4 * time.Second, 2 * time.Second
	e := newE2E(t, 300*time.Millisecond, func(o *testbed.Options) {
		o.Reconcile = map[string]time.Duration{"stranded_runner_timeout": threshold, "repair_interval": repair}
	})
	pool := e.addPool(t, e2eTags, 3, 4, nil)
	eventually(t, "three idle runners", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		return len(idleNames(insts)) == 3, describe(insts)
	})
	long := e.queueJobs(t, 1, 10*time.Second, e2eTags...)
	var busy string
	eventually(t, "a runner busy with the long job", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		for _, in := range insts {
			if testbed.RunnerState(in) == "active" {
				busy = in.Name
				return true, ""
			}
		}
		return false, describe(insts)
	})
	idle := idleNames(e.poolInstances(t, pool.ID))
	stranded := e.Sim.StrandRunners(false, idle...)
	struck := time.Now()
	if stranded != len(idle) || stranded == 0 {
		t.Fatalf("stranded %d runners of %v", stranded, idle)
	}
	jobs := e.queueJobs(t, 2, 0, e2eTags...)
	eventuallyWithin(t, 2*time.Minute, "the jobs queued during the outage served", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		if j, ok := e.Sim.Job(long[0]); ok && j.Status != "completed" && !present(insts, busy) {
			t.Fatalf("the busy runner %s was deleted while its job runs", busy)
		}
		n := e.CompletedJobs(jobs)
		return n == len(jobs), fmt.Sprintf("%d of %d; %s", n, len(jobs), describe(insts))
	})
	t.Logf("outage jobs served %v after the strike (threshold %v, repair every %v)", time.Since(struck).Round(100*time.Millisecond), threshold, repair)
	eventually(t, "the stranded runners gone, the long job done, the pool back at min idle", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		for _, name := range idle {
			if present(insts, name) || e.providerRecords(t)[name] {
				return false, name + " still there: " + describe(insts)
			}
		}
		return e.CompletedJobs(long) == 1 && len(idleNames(insts)) == 3, describe(insts)
	})
}

// present reports whether an instance of that name is among insts.
func present(insts []apiv1.Instance, name string) bool {
	for _, in := range insts {
		if in.Name == name {
			return true
		}
	}
	return false
}

package testbed_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// e2eTags are the labels of the end-to-end pools and jobs.
var e2eTags = []string{"self-hosted", "linux", "e2e"}

// TestE2EPoolLifecycle drives one pool through its life through the REST API: min idle
// runners kept, a burst of jobs served with at most max_runners instances and drained,
// every runner deleted after its one job (in garrison, the provider and the forge), min
// idle restored, then scale-down by disabling the pool and deleting what is idle.
func TestE2EPoolLifecycle(t *testing.T) {
	e := newE2E(t, 500*time.Millisecond)
	const minIdle, maxRunners, burst = 1, 3, 8
	pool := e.addPool(t, e2eTags, minIdle, maxRunners, nil)

	eventually(t, "min idle runners up", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		return len(insts) == minIdle && len(idleNames(insts)) == minIdle, describe(insts)
	})

	ids := e.queueJobs(t, burst, 500*time.Millisecond, e2eTags...)
	peak := 0
	eventually(t, "the burst completed", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		peak = max(peak, len(insts), len(e.providerRecords(t)))
		done := e.CompletedJobs(ids)
		return done == burst, fmt.Sprintf("%d of %d done, instances %s", done, burst, describe(insts))
	})
	if peak != maxRunners {
		t.Errorf("at most %d instances at once during the burst, want exactly max_runners %d", peak, maxRunners)
	}
	ran := e.jobRunners(t, ids)
	if len(ran) != burst {
		t.Errorf("%d jobs ran on %d distinct runners, want one runner per job: %v", burst, len(ran), ran)
	}
	e.expectRunnersGone(t, ran)

	eventually(t, "min idle runners after the burst", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		return len(idleNames(insts)) >= minIdle && len(insts) <= maxRunners, describe(insts)
	})

	// Scale-down to min idle waits out the reconciler's 5-minute grace, which the server
	// does not let anyone shorten: scale down the documented way instead.
	if err := e.ScaleDown(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.expectNoLeaks(t)
}

// jobRunners returns the runner of each job, failing for a job without one.
func (e *e2eEnv) jobRunners(t *testing.T, ids []int64) map[string]int64 {
	t.Helper()
	ran := map[string]int64{}
	for _, id := range ids {
		j, ok := e.Sim.Job(id)
		if !ok || j.RunnerName == "" {
			t.Fatalf("job %d: no runner recorded (%+v)", id, j)
		}
		ran[j.RunnerName] = id
	}
	return ran
}

// expectRunnersGone waits until none of the runners is left in garrison, the provider
// or the forge.
func (e *e2eEnv) expectRunnersGone(t *testing.T, runners map[string]int64) {
	t.Helper()
	eventually(t, "runners deleted after their job", func() (bool, string) {
		insts, err := e.API.ListInstances(t.Context())
		if err != nil {
			return false, err.Error()
		}
		recs, forge := e.providerRecords(t), e.forgeRunners()
		for _, in := range insts {
			if _, ok := runners[in.Name]; ok {
				return false, "garrison still has " + in.Name + " " + testbed.RunnerState(in)
			}
		}
		for name := range runners {
			if recs[name] || forge[name] {
				return false, fmt.Sprintf("%s: provider record %t, forge runner %t", name, recs[name], forge[name])
			}
		}
		return true, ""
	})
}

// TestE2ERotate changes a pool's image and rotates it: the idle runners of the old
// generation are replaced by runners of the new one.
func TestE2ERotate(t *testing.T) {
	e := newE2E(t, 500*time.Millisecond)
	const minIdle = 2
	pool := e.addPool(t, e2eTags, minIdle, 4, nil)
	var old []string
	eventually(t, "min idle runners up", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		old = idleNames(insts)
		return len(old) == minIdle, describe(insts)
	})

	updated, err := e.API.UpdatePool(t.Context(), pool.ID, apiv1.UpdatePoolParams{Image: "e2e-v2"})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Generation <= pool.Generation {
		t.Fatalf("pool generation %d after changing the image, was %d", updated.Generation, pool.Generation)
	}
	n, err := e.API.RotateOutdatedRunners(t.Context(), pool.ID)
	if err != nil {
		t.Fatalf("rotate: %v", err)
	}
	if n > minIdle {
		t.Errorf("rotated %d runners, only %d existed", n, minIdle)
	}
	eventually(t, "idle runners of the new generation only", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		fresh := 0
		for _, in := range insts {
			if in.Generation == updated.Generation && testbed.RunnerState(in) == "idle" {
				fresh++
			}
		}
		return fresh == minIdle && len(insts) == minIdle, describe(insts)
	})
	e.expectRunnersGone(t, map[string]int64{old[0]: 0, old[1]: 0})
}

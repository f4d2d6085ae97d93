package testbed_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestE2EScaleDownToMinIdle lowers a pool's min idle runners and checks that the surplus
// idle runners are removed (after the configured [reconcile] scale_down_grace) from
// garrison, the provider and the forge, down to the new minimum and never below.
func TestE2EScaleDownToMinIdle(t *testing.T) {
	e := newE2E(t, time.Second, func(o *testbed.Options) { o.ScaleDownGrace = 2 * time.Second })
	pool := e.addPool(t, []string{"self-hosted", "linux", "scale"}, 3, 5, nil)

	idleRunners := func() (int, []apiv1.Instance) {
		insts := e.poolInstances(t, pool.ID)
		n := 0
		for _, in := range insts {
			if in.Status == "running" && in.RunnerStatus == "idle" {
				n++
			}
		}
		return n, insts
	}
	eventually(t, "3 idle runners", func() (bool, string) {
		n, insts := idleRunners()
		return n == 3 && len(insts) == 3, fmt.Sprintf("%d idle of %d", n, len(insts))
	})

	one := uint(1)
	if _, err := e.API.UpdatePool(t.Context(), pool.ID, apiv1.UpdatePoolParams{MinIdleRunners: &one}); err != nil {
		t.Fatalf("lowering min idle: %v", err)
	}
	eventually(t, "scale-down to 1 idle runner everywhere", func() (bool, string) {
		n, insts := idleRunners()
		recs := e.providerRecords(t)
		runners := e.forgeRunners()
		return n == 1 && len(insts) == 1 && len(recs) == 1 && len(runners) == 1,
			fmt.Sprintf("garrison %d (%d idle), provider %d, forge %d", len(insts), n, len(recs), len(runners))
	})
	// It stays at the minimum: nothing more is removed, nothing is re-created.
	time.Sleep(4 * time.Second)
	if n, insts := idleRunners(); n != 1 || len(insts) != 1 {
		t.Errorf("after settling: %d instances, %d idle; want 1 idle", len(insts), n)
	}
}

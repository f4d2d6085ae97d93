package testbed_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// chaosPhase is one phase of the outage: how to break things and how to mend them.
type chaosPhase struct {
	name          string
	breakIt, mend func(e *e2eEnv) error
}

// chaosPhases are the outage's phases, in order; the last one is normal operation.
var chaosPhases = []chaosPhase{
	{"provider failing (every create exits 1)",
		func(e *e2eEnv) error { return e.SetProviderFault("failure_rate = 1.0") },
		func(e *e2eEnv) error { return e.SetProviderFault("") }},
	{"provider hang (creates never return; killed after 20 s)",
		func(e *e2eEnv) error { return e.SetProviderFault("hang = true") },
		func(e *e2eEnv) error { return e.SetProviderFault("") }},
	{"forge 500",
		func(e *e2eEnv) error {
			e.Sim.SetAPIFault(forgesim.APIFault{Status: http.StatusInternalServerError})
			return nil
		},
		func(e *e2eEnv) error { e.Sim.SetAPIFault(forgesim.APIFault{}); return nil }},
	{"forge 403/429 (rate limit with reset, secondary limit with Retry-After)",
		func(e *e2eEnv) error {
			e.Sim.SetRateLimit(forgesim.RateLimitOptions{Limit: 15, Window: 8 * time.Second, Status: http.StatusForbidden})
			e.Sim.TriggerSecondaryLimit(20, 3*time.Second, http.StatusTooManyRequests)
			return nil
		},
		func(e *e2eEnv) error {
			// The phase ends every limit it set: secondary-limit answers the server did not
			// use up (it calls less while limited) must not outlive the outage.
			e.Sim.SetRateLimit(forgesim.RateLimitOptions{})
			e.Sim.TriggerSecondaryLimit(0, 0, 0)
			return nil
		}},
	{"forge 401 (credentials refused)",
		func(e *e2eEnv) error { e.Sim.RevokeToken(e.PAT); return nil },
		func(e *e2eEnv) error { e.Sim.AddToken(e.PAT); return nil }},
	{"slow forge (5 s answers)",
		func(e *e2eEnv) error { e.Sim.SetAPIFault(forgesim.APIFault{Delay: 5 * time.Second}); return nil },
		func(e *e2eEnv) error { e.Sim.SetAPIFault(forgesim.APIFault{}); return nil }},
	{"normal", nil, nil},
}

// chaosPhaseLength is how long each phase lasts; chaosRPMBound bounds the forge API
// requests per minute garrison may make in any phase (a hammering client would make
// thousands).
const (
	chaosPhaseLength = 20 * time.Second
	chaosRPMBound    = 600
)

// TestE2EChaosOutageAndRecovery runs a pool through an outage of phases — provider
// failing, provider hanging, forge 500, forge rate limits (403 with a reset, 429 with
// Retry-After), forge 401, a slow forge — then normal operation, queueing jobs in every
// phase. No admin action is taken: the faults are injected in the provider's config file
// and the forge simulator. At the end every job is served, no instance is left in error
// holding capacity, the pool is back at min idle and healthy. The forge requests per
// minute of each phase are logged and bounded. Slow (three to five minutes): behind
// GARRISON_E2E_SLOW=1.
func TestE2EChaosOutageAndRecovery(t *testing.T) {
	if os.Getenv(e2eSlowEnv) != "1" {
		t.Skipf("set %s=1 to run the outage-and-recovery chaos test (three to five minutes)", e2eSlowEnv)
	}
	e := newE2E(t, 300*time.Millisecond, func(o *testbed.Options) {
		o.ScaleDownGrace = 5 * time.Second
		o.Reconcile = map[string]time.Duration{"retry_backoff": 500 * time.Millisecond, "max_retry_backoff": 4 * time.Second,
			"resync_interval": 2 * time.Second, "repair_interval": 3 * time.Second,
			"sweep_interval": 3 * time.Second, "sweep_start_delay": time.Second}
		o.ProviderExternal = "  command_timeouts = { CreateInstance = 20 }\n"
	})
	pool := e.addPool(t, e2eTags, 2, 4, nil)
	eventually(t, "two idle runners", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		return len(idleNames(insts)) == 2, describe(insts)
	})
	var jobs []int64
	var report []string
	for _, ph := range chaosPhases {
		e.Sim.ResetCalls()
		start := time.Now()
		if ph.breakIt != nil {
			if err := ph.breakIt(e); err != nil {
				t.Fatal(err)
			}
		}
		jobs = append(jobs, e.queueJobs(t, 2, 0, e2eTags...)...)
		time.Sleep(chaosPhaseLength)
		calls := 0
		for _, n := range e.Sim.Calls() {
			calls += n
		}
		rpm := float64(calls) / time.Since(start).Minutes()
		if ph.mend != nil {
			if err := ph.mend(e); err != nil {
				t.Fatal(err)
			}
		}
		h, _ := e.API.PoolHealth(t.Context(), pool.ID)
		line := fmt.Sprintf("%-72s %4d forge requests, %6.1f/min; pool %s %.80s; jobs done %d/%d", ph.name, calls, rpm,
			h.State, h.Reason, e.CompletedJobs(jobs), len(jobs))
		report = append(report, line)
		t.Log(line)
		if rpm > chaosRPMBound {
			t.Errorf("%s: %.0f forge requests per minute, more than %d", ph.name, rpm, chaosRPMBound)
		}
	}
	recovered := time.Now()
	eventuallyWithin(t, 4*time.Minute, "every job served", func() (bool, string) {
		n := e.CompletedJobs(jobs)
		return n == len(jobs), fmt.Sprintf("%d of %d; %s", n, len(jobs), describe(e.poolInstances(t, pool.ID)))
	})
	eventuallyWithin(t, 2*time.Minute, "the pool back at min idle, healthy, nothing in error", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		live := 0
		for _, in := range insts {
			if in.Status == "error" {
				return false, describe(insts)
			}
			if in.Status != "deleted" {
				live++
			}
		}
		h, err := e.API.PoolHealth(t.Context(), pool.ID)
		return live == 2 && len(idleNames(insts)) == 2 && err == nil && h.State == apiv1.PoolHealthy,
			fmt.Sprintf("%s %+v %v", describe(insts), h, err)
	})
	history := 0
	for _, in := range e.poolInstances(t, pool.ID) {
		if in.Status == "deleted" {
			history++
		}
	}
	t.Logf("chaos summary:\n%s\nall %d jobs served %v after the last phase began; %d retired runners kept as history",
		strings.Join(report, "\n"), len(jobs), time.Since(recovered).Round(time.Second), history)
}

package testbed_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// failingSpecs makes every CreateInstance of a pool fail (simulation provider override).
var failingSpecs = json.RawMessage(`{"failure_rate": 1}`)

// withExtraSpecs sets a pool's extra specs.
func withExtraSpecs(specs json.RawMessage) func(*apiv1.CreatePoolParams) {
	return func(p *apiv1.CreatePoolParams) { p.ExtraSpecs = specs }
}

// simulatedFault is what the simulation provider reports for a failed create.
const simulatedFault = "simulated create failure"

// TestE2ECreateFailureRetried checks that a failed create leaves the instance in error
// with the provider's fault visible through GET /api/v1/instances/{name}, that nothing of
// the attempt is left in the provider or the forge, and that the create is retried.
// With GARRISON_E2E_SLOW=1 it also waits out the whole default retry schedule (about 2.5
// minutes of backoff) and checks that garrison gives up after the last attempt and retires
// the instance: kept as history with its fault, gone from the provider and the forge.
func TestE2ECreateFailureRetried(t *testing.T) {
	e := newE2E(t, 500*time.Millisecond)
	pool := e.addPool(t, e2eTags, 1, 1, withExtraSpecs(failingSpecs))
	name := e.waitFailedAttempt(t, pool.ID, 1)
	e.expectNoCounterparts(t, name)
	e.waitFailedAttempt(t, pool.ID, 2)
	if os.Getenv(e2eSlowEnv) != "1" {
		t.Logf("set %s=1 to wait for the last create attempt", e2eSlowEnv)
		return
	}
	const attempts = 5 // reconcile.Policy's default MaxCreateAttempts; not configurable
	eventuallyWithin(t, 5*time.Minute, "the last create attempt", func() (bool, string) {
		in, err := e.API.GetInstance(t.Context(), name)
		return err == nil && hasMessage(in, fmt.Sprintf("create attempt %d of %d failed", attempts, attempts)), fmt.Sprint(err)
	})
	// The exhausted instance is retired: kept as history with its fault, out of the
	// provider and the forge, no longer holding the pool's one slot.
	eventually(t, "the exhausted instance retired", func() (bool, string) {
		in := e.getInstance(t, name)
		return in.Status == "deleted" && hasMessage(in, "retired: create attempts exhausted"), fmt.Sprintf("%s %v", in.Status, in.StatusMessages)
	})
	if in := e.getInstance(t, name); !strings.Contains(string(in.ProviderFault), simulatedFault) || hasMessage(in, fmt.Sprintf("(attempt %d)", attempts+1)) {
		t.Errorf("after the last attempt: fault %q, messages %+v", in.ProviderFault, in.StatusMessages)
	}
	e.expectNoCounterparts(t, name)
}

// waitFailedAttempt waits until the pool's one instance failed create attempt number
// attempt, checks the fault is visible on it and returns its name.
func (e *e2eEnv) waitFailedAttempt(t *testing.T, poolID string, attempt int) string {
	t.Helper()
	var name string
	eventually(t, fmt.Sprintf("create attempt %d to fail", attempt), func() (bool, string) {
		insts := e.poolInstances(t, poolID)
		if len(insts) != 1 {
			return false, describe(insts)
		}
		in := e.getInstance(t, insts[0].Name)
		name = in.Name
		return in.Status == "error" && hasMessage(in, fmt.Sprintf("create attempt %d of", attempt)), describe(insts)
	})
	in := e.getInstance(t, name)
	if !strings.Contains(string(in.ProviderFault), simulatedFault) {
		t.Errorf("instance %s: provider_fault %q, want the provider's %q", name, in.ProviderFault, simulatedFault)
	}
	return name
}

// getInstance is GET /api/v1/instances/{name}.
func (e *e2eEnv) getInstance(t *testing.T, name string) apiv1.Instance {
	t.Helper()
	in, err := e.API.GetInstance(t.Context(), name)
	if err != nil {
		t.Fatalf("GET instance %s: %v", name, err)
	}
	return in
}

// expectNoCounterparts waits until the provider has no record and the forge no runner
// named name.
func (e *e2eEnv) expectNoCounterparts(t *testing.T, name string) {
	t.Helper()
	eventually(t, name+" gone from the provider and the forge", func() (bool, string) {
		rec, rn := e.providerRecords(t)[name], e.forgeRunners()[name]
		return !rec && !rn, fmt.Sprintf("provider record %t, forge runner %t", rec, rn)
	})
}

// TestE2EForceDelete force-deletes an idle runner and an instance whose create failed:
// each is gone from garrison, the provider and the forge, and the pool replaces it.
// max_runners is 1: min idle does not count an instance waiting for a create retry, so a
// larger pool would fill up with failing instances.
func TestE2EForceDelete(t *testing.T) {
	tests := []struct {
		name  string
		specs json.RawMessage
		ready func(apiv1.Instance) bool
	}{
		{"idle runner", nil, func(in apiv1.Instance) bool { return testbed.RunnerState(in) == "idle" }},
		{"failed create", failingSpecs, func(in apiv1.Instance) bool { return in.Status == "error" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t, 500*time.Millisecond)
			pool := e.addPool(t, e2eTags, 1, 1, withExtraSpecs(tt.specs))
			var name string
			eventually(t, "an instance to delete", func() (bool, string) {
				insts := e.poolInstances(t, pool.ID)
				if len(insts) == 1 && tt.ready(insts[0]) {
					name = insts[0].Name
					return true, ""
				}
				return false, describe(insts)
			})
			if err := e.API.DeleteInstance(t.Context(), name, true, false); err != nil {
				t.Fatalf("force delete %s: %v", name, err)
			}
			eventually(t, name+" gone from garrison", func() (bool, string) {
				_, err := e.API.GetInstance(t.Context(), name)
				return apiclient.IsNotFound(err), fmt.Sprint(err)
			})
			e.expectNoCounterparts(t, name)
			eventually(t, "a replacement", func() (bool, string) {
				insts := e.poolInstances(t, pool.ID)
				return len(insts) == 1 && insts[0].Name != name && tt.ready(insts[0]), describe(insts)
			})
		})
	}
}

// TestE2EBootstrapTimeout gives a pool a provider whose CreateInstance never returns
// (simulation provider extra spec "hang") and the smallest bootstrap timeout the API
// takes, one minute: the create is abandoned after it, and the instance is in error with
// the reason on it, its provider process gone. It needs GARRISON_E2E_SLOW=1 (the
// bootstrap timeout is counted in whole minutes). Without it, it only checks that the
// hung instance waits in creating and that min idle does not pile up more instances.
func TestE2EBootstrapTimeout(t *testing.T) {
	e := newE2E(t, 500*time.Millisecond)
	pool := e.addPool(t, e2eTags, 1, 2, func(p *apiv1.CreatePoolParams) {
		p.ExtraSpecs = json.RawMessage(`{"hang": true}`)
		p.RunnerBootstrapTimeout = 1
	})
	var name string
	eventually(t, "the hung create", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		if len(insts) == 1 && insts[0].Status == "creating" {
			name = insts[0].Name
			return true, ""
		}
		return false, describe(insts)
	})
	time.Sleep(3 * time.Second) // the absence of more creates cannot be polled for
	if insts := e.poolInstances(t, pool.ID); len(insts) != 1 || insts[0].Name != name {
		t.Errorf("while %s hangs in creating: %s, want it alone", name, describe(insts))
	}
	if os.Getenv(e2eSlowEnv) != "1" {
		t.Logf("set %s=1 to wait out the one-minute bootstrap timeout", e2eSlowEnv)
		return
	}
	eventuallyWithin(t, 3*time.Minute, "the hung create abandoned", func() (bool, string) {
		in := e.getInstance(t, name)
		return in.Status == "error" && hasMessage(in, "create attempt 1 of"), fmt.Sprintf("%s %v", in.Status, in.StatusMessages)
	})
	if in := e.getInstance(t, name); len(in.ProviderFault) == 0 {
		t.Errorf("%s: no provider fault after the bootstrap timeout: %+v", name, in)
	}
	e.expectNoCounterparts(t, name)
}

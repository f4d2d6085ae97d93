package testbed_test

import (
	"fmt"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestE2EDeleteDeregistersOnce deletes an idle runner through the API (not forced): its
// forge runner is deregistered exactly once, by the API call (rest-api §3.7), and the
// reconciler that removes the instance afterwards does not deregister it again. (The
// replacement the pool makes registers a fresh runner, which deletes nothing.)
func TestE2EDeleteDeregistersOnce(t *testing.T) {
	const deleteRoute = "DELETE /repos/{owner}/{repo}/actions/runners/{id}"
	e := newE2E(t, 0)
	pool := e.addPool(t, e2eTags, 1, 1, nil)
	var name string
	eventually(t, "an idle runner", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		if len(insts) == 1 && testbed.RunnerState(insts[0]) == "idle" {
			name = insts[0].Name
			return true, ""
		}
		return false, describe(insts)
	})
	e.Sim.ResetCalls()
	if err := e.API.DeleteInstance(t.Context(), name, false, false); err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
	eventually(t, name+" gone from garrison", func() (bool, string) {
		_, err := e.API.GetInstance(t.Context(), name)
		return apiclient.IsNotFound(err), fmt.Sprint(err)
	})
	e.expectNoCounterparts(t, name)
	if n := callsTo(e.Sim, deleteRoute); n != 1 {
		t.Errorf("the forge runner was deregistered %d times, want once", n)
	}
}

// callsTo counts the simulator calls to route, whatever the credential.
func callsTo(sim *forgesim.Sim, route string) int {
	n := 0
	for k, v := range sim.Calls() {
		if k.Route == route {
			n += v
		}
	}
	return n
}

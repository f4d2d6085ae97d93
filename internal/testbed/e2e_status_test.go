package testbed_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestE2EPoolManagerStatusFollowsTheForge breaks the repository's credentials (401) and
// then the repository itself (404) in the forge simulator: its pool_manager_status goes
// running: false with a failure_reason naming the cause, and comes back to running by
// itself once the forge answers again. The sweep, set to run every second, is what calls
// the forge here.
func TestE2EPoolManagerStatusFollowsTheForge(t *testing.T) {
	e := newE2E(t, 0, func(o *testbed.Options) {
		o.Reconcile = map[string]time.Duration{"sweep_interval": time.Second, "sweep_start_delay": time.Second}
	})
	tests := []struct {
		name        string
		breakIt     func()
		fix         func()
		wantInCause string
	}{
		{"credentials refused", func() { e.Sim.RevokeToken(e.PAT) }, func() { e.Sim.AddToken(e.PAT) }, "refused the credentials"},
		{"repository unreachable", func() { e.Sim.SetUnreachable("repos/"+testbed.Repo, true) },
			func() { e.Sim.SetUnreachable("repos/"+testbed.Repo, false) }, "does not know"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.waitStatus(t, "running", func(s apiv1.PoolManagerStatus) bool { return s.IsRunning })
			tt.breakIt()
			e.waitStatus(t, "failed: "+tt.wantInCause, func(s apiv1.PoolManagerStatus) bool {
				return !s.IsRunning && strings.Contains(s.FailureReason, tt.wantInCause) && strings.Contains(s.FailureReason, testbed.Repo)
			})
			tt.fix()
			e.waitStatus(t, "running again", func(s apiv1.PoolManagerStatus) bool { return s.IsRunning && s.FailureReason == "" })
		})
	}
}

// waitStatus waits until the repository's pool_manager_status satisfies ok.
func (e *e2eEnv) waitStatus(t *testing.T, what string, ok func(apiv1.PoolManagerStatus) bool) {
	t.Helper()
	eventually(t, "pool_manager_status "+what, func() (bool, string) {
		r, err := e.API.GetRepository(t.Context(), e.repoID)
		if err != nil {
			return false, err.Error()
		}
		return ok(r.PoolManagerStatus), fmt.Sprintf("%+v", r.PoolManagerStatus)
	})
}

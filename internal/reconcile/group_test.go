package reconcile

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
)

// TestRunnerGroupOfRepositoryPoolsIgnored checks that a repository pool's runner group
// is ignored (repositories have none: the forge would refuse it) and its runners join the
// default group, with one log line; an organization pool's group is used.
func TestRunnerGroupOfRepositoryPoolsIgnored(t *testing.T) {
	tests := []struct {
		name      string
		org       bool
		wantGroup func(h *harness) int64
		wantLogs  int
	}{
		{"repository", false, func(*harness) int64 { return 1 }, 1},
		{"organization", true, func(h *harness) int64 {
			id, err := h.sim.AddRunnerGroup("acme", "team", false)
			if err != nil {
				h.t.Fatal(err)
			}
			return id
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			if tt.org {
				h.entity = must(h.store.CreateEntity(t.Context(), garrison.Entity{Type: garrison.Organization, Name: "acme",
					CredentialsID: h.entity.CredentialsID, Balancer: garrison.RoundRobin}))(t)
				h.entity = must(h.store.Entity(t.Context(), h.entity.ID))(t)
			}
			wantGroup := tt.wantGroup(h)
			var logs syncBuffer
			r, err := New(Options{Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge},
				Tokens: h.tokens, InjectTemplate: injectTemplate, Now: h.clock, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			p := h.pool(2, 2, "")
			must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.RunnerGroup = "team"; return nil }))(t)
			h.settle(r, p.ID)
			ins := h.instances(p.ID)
			if len(ins) != 2 {
				t.Fatalf("%d instances, want 2", len(ins))
			}
			for _, in := range ins {
				if in.Status != garrison.InstanceRunning {
					t.Errorf("%s is %s, want running", in.Name, in.Status)
				}
			}
			runners := h.sim.Runners()
			if len(runners) != 2 {
				t.Fatalf("%d forge runners, want 2", len(runners))
			}
			for _, rn := range runners {
				if rn.GroupID != wantGroup {
					t.Errorf("runner %s is in group %d, want %d", rn.Name, rn.GroupID, wantGroup)
				}
			}
			if n := strings.Count(logs.String(), "ignoring the pool's runner group"); n != tt.wantLogs {
				t.Errorf("logged the ignored group %d times, want %d:\n%s", n, tt.wantLogs, logs.String())
			}
		})
	}
}

package forges

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
	"github.com/garrison-ci/garrison/internal/sweep"
)

// hubEnv is a forge hub over a real SQLite store whose GitHub endpoint is the forge
// simulator, with the repository acme/app registered in both.
type hubEnv struct {
	sim     *forgesim.Sim
	st      *sqlite.Store
	hub     *Hub
	repo    garrison.Entity
	hookURL string
}

// newHubEnv builds the environment; the hub reports to o's HooksChanged and Health.
func newHubEnv(t *testing.T, o Options) *hubEnv {
	t.Helper()
	ctx := t.Context()
	sim := forgesim.New(forgesim.Options{})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sim.AddToken("tok")
	sim.AddOrg("acme")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer("p"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateEndpoint(ctx, garrison.Endpoint{Name: "sim", Type: garrison.GitHub, BaseURL: url,
		APIBaseURL: url + "/api/v3/", UploadBaseURL: url + "/api/uploads/"}); err != nil {
		t.Fatal(err)
	}
	cred, err := st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "sim", PAT: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app",
		CredentialsID: cred.ID, WebhookSecret: "s", Balancer: garrison.RoundRobin})
	if err != nil {
		t.Fatal(err)
	}
	if repo, err = st.Entity(ctx, repo.ID); err != nil {
		t.Fatal(err)
	}
	e := &hubEnv{sim: sim, st: st, repo: repo, hookURL: "http://127.0.0.1:1/webhooks/ctrl"}
	o.Store, o.HookURL = st, func(context.Context) (string, error) { return e.hookURL, nil }
	e.hub = New(o)
	return e
}

// calls counts the simulator calls to route, whatever the credential.
func (e *hubEnv) calls(route string) int {
	n := 0
	for k, c := range e.sim.Calls() {
		if k.Route == route {
			n += c
		}
	}
	return n
}

// TestInstalledWebhookFoundByTheNextSweep checks that the sweep, which caches that an
// entity has no garrison webhook, looks again as soon as the API installed one.
func TestInstalledWebhookFoundByTheNextSweep(t *testing.T) {
	const hooks = "GET /repos/{owner}/{repo}/hooks"
	const deliveries = "GET /repos/{owner}/{repo}/hooks/{id}/deliveries"
	var sw *sweep.Sweeper
	e := newHubEnv(t, Options{HooksChanged: func(id string) { sw.ForgetHook(id) }})
	sw, err := sweep.New(sweep.Options{Store: e.st, Forges: e.hub.SweepForge})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := sw.SweepEntity(t.Context(), e.repo); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.calls(hooks); n != 1 {
		t.Fatalf("hooks listed %d times by two sweeps without a webhook, want 1", n)
	}
	if _, err := e.hub.InstallWebhook(t.Context(), e.repo, httpapi.WebhookRequest{URL: e.hookURL}); err != nil {
		t.Fatal(err)
	}
	e.sim.ResetCalls()
	for range 2 {
		if _, err := sw.SweepEntity(t.Context(), e.repo); err != nil {
			t.Fatal(err)
		}
	}
	if h, d := e.calls(hooks), e.calls(deliveries); h != 1 || d != 2 {
		t.Fatalf("after the install: %d hook listings, %d delivery listings; want 1 and 2", h, d)
	}
}

// TestForgeCallsReportTheEntityStatus checks what forge calls made for an entity tell
// its pool manager status: a refused credential or (for calls on the entity itself) a
// missing entity marks it failed with the cause, a 404 of something inside the entity
// (a runner) does not, and the next successful call clears the failure.
func TestForgeCallsReportTheEntityStatus(t *testing.T) {
	listRunners := func(e *hubEnv) error {
		f, err := e.hub.ReconcileForges().Forge(t.Context(), e.repo)
		if err == nil {
			_, err = f.ListRunners(t.Context(), e.repo)
		}
		return err
	}
	queuedJobs := func(e *hubEnv) error {
		f, err := e.hub.SweepForge(t.Context(), e.repo)
		if err == nil {
			_, err = f.QueuedJobs(t.Context(), e.repo)
		}
		return err
	}
	deleteRunner := func(e *hubEnv) error { return e.hub.RemoveRunner(t.Context(), e.repo, 424242) }
	tests := []struct {
		name        string
		call        func(e *hubEnv) error
		breakIt     func(e *hubEnv)
		wantInCause string // "" when the status must stay running
	}{
		{"runner listing, token revoked", listRunners, func(e *hubEnv) { e.sim.RevokeToken("tok") }, "refused the credentials"},
		{"runner listing, repository unreachable", listRunners, func(e *hubEnv) { e.sim.SetUnreachable("repos/acme/app", true) }, "does not know"},
		{"queued jobs, token revoked", queuedJobs, func(e *hubEnv) { e.sim.RevokeToken("tok") }, "refused the credentials"},
		{"queued jobs, repository unreachable", queuedJobs, func(e *hubEnv) { e.sim.SetUnreachable("repos/acme/app", true) }, "does not know"},
		{"runner removal, token revoked", deleteRunner, func(e *hubEnv) { e.sim.RevokeToken("tok") }, "refused the credentials"},
		{"runner removal, runner missing", deleteRunner, func(*hubEnv) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pm := &healthRecorder{failed: map[string]string{}}
			e := newHubEnv(t, Options{Health: pm})
			_ = tt.call(e)
			tt.breakIt(e)
			if err := tt.call(e); err == nil {
				t.Fatal("the broken call succeeded")
			}
			running, reason := pm.Status(e.repo.ID)
			if tt.wantInCause == "" {
				if !running {
					t.Fatalf("status failed (%s), want running", reason)
				}
				return
			}
			if running || !strings.Contains(reason, tt.wantInCause) || !strings.Contains(reason, "acme/app") {
				t.Fatalf("status %v %q, want failed naming %q and the repository", running, reason, tt.wantInCause)
			}
			e.sim.AddToken("tok")
			e.sim.SetUnreachable("repos/acme/app", false)
			if err := listRunners(e); err != nil {
				t.Fatal(err)
			}
			if running, reason := pm.Status(e.repo.ID); !running {
				t.Fatalf("after the forge recovered: failed (%s), want running", reason)
			}
		})
	}
}

// healthRecorder records what the hub reports about each entity, as the server's pool
// management status does: the last failure, until a success clears it.
type healthRecorder struct {
	mu     sync.Mutex // guards failed
	failed map[string]string
}

func (r *healthRecorder) SetFailed(entityID, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed[entityID] = reason
}

func (r *healthRecorder) Clear(entityID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failed, entityID)
}

// Status reports whether the entity is healthy, and the failure otherwise.
func (r *healthRecorder) Status(entityID string) (bool, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reason, failed := r.failed[entityID]
	return !failed, reason
}

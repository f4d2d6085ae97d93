package forges

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// forgeEnv is a hub over a real SQLite store whose one endpoint, of the given forge type,
// is the forge simulator, with the organization acme registered in both.
type forgeEnv struct {
	sim  *forgesim.Sim
	hub  *Hub
	org  garrison.Entity
	repo garrison.Entity // acme/app
}

func newForgeEnv(t *testing.T, ft garrison.ForgeType, o Options) *forgeEnv {
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
	ep := garrison.Endpoint{Name: "sim", Type: ft, BaseURL: url, APIBaseURL: url + "/api/v3/", UploadBaseURL: url + "/api/uploads/"}
	if ft == garrison.Gitea {
		ep = garrison.Endpoint{Name: "sim", Type: ft, BaseURL: url, APIBaseURL: url + "/api/v1",
			ToolsMetadataURL: url + "/api/v1/repos/gitea/runner/releases"}
	}
	if _, err := st.CreateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	cred, err := st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: ft, AuthType: garrison.AuthPAT, Endpoint: "sim", PAT: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	org, err := st.CreateEntity(ctx, garrison.Entity{Type: garrison.Organization, Name: "acme", CredentialsID: cred.ID,
		WebhookSecret: "s", Balancer: garrison.RoundRobin})
	if err != nil {
		t.Fatal(err)
	}
	if org, err = st.Entity(ctx, org.ID); err != nil {
		t.Fatal(err)
	}
	repo, err := st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app", CredentialsID: cred.ID,
		WebhookSecret: "s", Balancer: garrison.RoundRobin})
	if err != nil {
		t.Fatal(err)
	}
	if repo, err = st.Entity(ctx, repo.ID); err != nil {
		t.Fatal(err)
	}
	o.Store, o.HookURL = st, func(context.Context) (string, error) { return "http://127.0.0.1:1/webhooks/ctrl", nil }
	return &forgeEnv{sim: sim, hub: New(o), org: org, repo: repo}
}

// TestBothForgesThroughOneMethodSet runs the same hub calls against a GitHub and a Gitea
// organization: the webhook's install, lookup (by a URL differing in a trailing slash)
// and removal (a second one finds nothing and succeeds), a conflict on a second install, and the JIT request, which Gitea answers
// with garrison.ErrJITUnsupported without marking the entity failed.
func TestBothForgesThroughOneMethodSet(t *testing.T) {
	const hookURL = "http://127.0.0.1:1/webhooks/ctrl"
	for _, ft := range []garrison.ForgeType{garrison.GitHub, garrison.Gitea} {
		t.Run(string(ft), func(t *testing.T) {
			ctx := t.Context()
			pm := &healthRecorder{failed: map[string]string{}}
			e := newForgeEnv(t, ft, Options{Health: pm})
			req := httpapi.WebhookRequest{URL: hookURL}
			if _, err := e.hub.WebhookInfo(ctx, e.org, req); !errors.Is(err, garrison.ErrNotFound) {
				t.Fatalf("info before the install: %v, want not found", err)
			}
			info, err := e.hub.InstallWebhook(ctx, e.org, httpapi.WebhookRequest{URL: hookURL, InsecureSSL: true})
			// Gitea hooks have no insecure_ssl setting (rest-api-2 WH-3): only GitHub keeps it.
			if err != nil || info.ID == 0 || info.URL != hookURL || info.InsecureSSL != (ft == garrison.GitHub) || !info.Active {
				t.Fatalf("install: %+v %v", info, err)
			}
			if _, err := e.hub.InstallWebhook(ctx, e.org, req); !errors.Is(err, garrison.ErrConflict) {
				t.Fatalf("second install: %v, want a conflict", err)
			}
			got, err := e.hub.WebhookInfo(ctx, e.org, httpapi.WebhookRequest{URL: hookURL + "/"})
			if err != nil || got.ID != info.ID {
				t.Fatalf("info: %+v %v, want hook %d", got, err, info.ID)
			}
			if err := e.hub.UninstallWebhook(ctx, e.org, req); err != nil {
				t.Fatal(err)
			}
			// Nothing left to remove is success (rest-api-2 WH-5).
			if err := e.hub.UninstallWebhook(ctx, e.org, req); err != nil {
				t.Fatalf("second uninstall: %v, want success", err)
			}
			if _, err := e.hub.WebhookInfo(ctx, e.org, req); !errors.Is(err, garrison.ErrNotFound) {
				t.Fatalf("info after the uninstall: %v, want not found", err)
			}

			f, err := e.hub.ReconcileForges().Forge(ctx, e.org)
			if err != nil {
				t.Fatal(err)
			}
			jit, err := f.CreateJITConfig(ctx, e.org, garrison.JITRequest{Name: "r1", Labels: []string{"linux"}})
			if ft == garrison.Gitea {
				if !errors.Is(err, garrison.ErrJITUnsupported) {
					t.Fatalf("Gitea JIT: %v, want garrison.ErrJITUnsupported", err)
				}
			} else if err != nil || jit.RunnerID == 0 || len(jit.Files) == 0 {
				t.Fatalf("GitHub JIT: %+v %v", jit, err)
			}
			if running, reason := pm.Status(e.org.ID); !running {
				t.Fatalf("entity marked failed: %s", reason)
			}
			if _, err := f.ListRunners(ctx, e.org); err != nil {
				t.Fatal(err)
			}
			if ds, err := f.RunnerDownloads(ctx, e.org); err != nil || len(ds) == 0 {
				t.Fatalf("downloads: %v %v", ds, err)
			}
		})
	}
}

// TestGiteaInstallPings checks WH-3 on Gitea: after an install a repository hook is
// tested (Gitea's ping: a synthetic push is delivered); an organization hook, which Gitea
// cannot test, gets nothing.
func TestGiteaInstallPings(t *testing.T) {
	const test = "POST /api/v1/repos/{owner}/{repo}/hooks/{id}/tests"
	tests := []struct {
		name   string
		entity func(*forgeEnv) garrison.Entity
		tests  int
	}{
		{"repository", func(e *forgeEnv) garrison.Entity { return e.repo }, 1},
		{"organization", func(e *forgeEnv) garrison.Entity { return e.org }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newForgeEnv(t, garrison.Gitea, Options{})
			if _, err := e.hub.InstallWebhook(t.Context(), tt.entity(e), hookReq(false)); err != nil {
				t.Fatal(err)
			}
			n := 0
			for k, c := range e.sim.Calls() {
				if k.Route == test {
					n += c
				}
			}
			if n != tt.tests {
				t.Fatalf("%d hook tests, want %d", n, tt.tests)
			}
			if err := e.sim.WaitDeliveries(t.Context()); err != nil {
				t.Fatal(err)
			}
			pushes := 0
			for _, d := range e.sim.Deliveries() {
				if d.Event == "push" {
					pushes++
				}
			}
			if pushes != tt.tests {
				t.Fatalf("%d push deliveries, want %d", pushes, tt.tests)
			}
		})
	}
}

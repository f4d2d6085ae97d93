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
	sim *forgesim.Sim
	hub *Hub
	org garrison.Entity
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
	o.Store, o.HookURL = st, func(context.Context) (string, error) { return "http://127.0.0.1:1/webhooks/ctrl", nil }
	return &forgeEnv{sim: sim, hub: New(o), org: org}
}

// TestBothForgesThroughOneMethodSet runs the same hub calls against a GitHub and a Gitea
// organization: the webhook's install, lookup (by a URL differing in a trailing slash)
// and removal, a conflict on a second install, and the JIT request, which Gitea answers
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
			if err != nil || info.ID == 0 || info.URL != hookURL || !info.InsecureSSL || !info.Active {
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
			if err := e.hub.UninstallWebhook(ctx, e.org, req); !errors.Is(err, garrison.ErrNotFound) {
				t.Fatalf("second uninstall: %v, want not found", err)
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

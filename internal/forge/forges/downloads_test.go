package forges

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// TestForgeHubGiteaDownloads checks that a Gitea entity's runner downloads come from the
// endpoint's tools metadata URL, mapped to the provider wire shape, and are cached.
func TestForgeHubGiteaDownloads(t *testing.T) {
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
	if _, err := st.CreateEndpoint(ctx, garrison.Endpoint{Name: "gitea", Type: garrison.Gitea, BaseURL: url,
		APIBaseURL: url + "/api/v1", ToolsMetadataURL: url + "/api/v1/repos/gitea/runner/releases"}); err != nil {
		t.Fatal(err)
	}
	cred, err := st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: garrison.Gitea,
		AuthType: garrison.AuthPAT, Endpoint: "gitea", PAT: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	hub := New(Options{Store: st, HookURL: func(context.Context) (string, error) { return "", nil }})
	e := garrison.Entity{Type: garrison.Organization, Name: "acme", CredentialsID: cred.ID}
	for range 2 {
		ds, err := hub.RunnerDownloads(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		arches := map[string]bool{}
		for _, d := range ds {
			arches[d.OS+"/"+d.Architecture] = true
		}
		if !arches["linux/amd64"] || !arches["linux/arm"] || !arches["windows/amd64"] {
			t.Errorf("downloads %+v", ds)
		}
	}
}

package garmimport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// newTarget opens a fresh garrison SQLite store.
func newTarget(t *testing.T) (store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "garrison.db")
	st, err := sqlite.Open(t.Context(), path, storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

// fixtureOptions imports the fixture with garrison's provider "lxd", skipping what
// garrison cannot hold.
func fixtureOptions(cfg string, st store.Store) Options {
	return Options{GARMConfig: cfg, OpenTarget: target(st), TargetLocation: "test", Providers: []string{"lxd"},
		SkipUnsupported: true, JWT: JWTState{Current: "garrison-generated-secret"}}
}

// target opens st (nil: no database yet).
func target(st store.Store) func(context.Context) (store.Store, error) {
	return func(context.Context) (store.Store, error) { return st, nil }
}

// fileHashes fingerprints every file of dir, so a test can tell nothing was written,
// created or removed there.
func fileHashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

// TestImportFixture imports the real GARM installation into a fresh garrison store and
// compares everything garrison holds with the fixture's expected.json; GARM's files stay
// byte for byte as they were, with no file added next to them.
func TestImportFixture(t *testing.T) {
	dir, cfg := copyFixture(t)
	before := fileHashes(t, dir)
	st, _ := newTarget(t)
	rep, err := Run(t.Context(), fixtureOptions(cfg, st))
	if err != nil {
		var b bytes.Buffer
		_ = rep.WriteText(&b)
		t.Fatalf("import: %v\n%s", err, b.String())
	}
	if after := fileHashes(t, dir); !mapsEqual(before, after) {
		t.Errorf("GARM's directory changed: before %d files, after %d", len(before), len(after))
	}
	checkFixtureImport(t, st, rep)
}

// checkFixtureImport compares a store the fixture was imported into with expected.json.
func checkFixtureImport(t *testing.T, st store.Store, rep *Report) {
	want := loadExpected(t)
	t.Run("controller and admin", func(t *testing.T) { checkController(t, st, want) })
	t.Run("endpoints", func(t *testing.T) { checkEndpoints(t, st, want) })
	t.Run("credentials", func(t *testing.T) { checkCredentials(t, st, want, rep) })
	t.Run("entities", func(t *testing.T) { checkEntities(t, st, want) })
	t.Run("pools", func(t *testing.T) { checkPools(t, st, want) })
	t.Run("proxies and objects", func(t *testing.T) { checkProxiesAndObjects(t, st, want) })
	t.Run("templates", func(t *testing.T) { checkTemplates(t, st, want) })
	t.Run("instances", func(t *testing.T) { checkInstances(t, st, want) })
	t.Run("jobs", func(t *testing.T) { checkJobs(t, st, want) })
	t.Run("report", func(t *testing.T) { checkFixtureReport(t, rep) })
}

func mapsEqual(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func checkController(t *testing.T, st store.Store, want expected) {
	ctx := t.Context()
	c, err := st.Controller(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := want.Controller
	got := []any{c.ID, c.MetadataURL, c.CallbackURL, c.WebhookURL, c.AgentURL, c.MinimumJobAgeBackoff,
		c.AgentReleasesURL, c.EnableAgentToolsSync, c.AgentVersion, c.AllowInsecureAgent}
	exp := []any{w.ControllerID, w.MetadataURL, w.CallbackURL, w.WebhookBaseURL, w.AgentURL, w.MinimumJobAgeBackoff,
		w.ReleasesURL, w.SyncTools, w.AgentVersion, w.AllowInsecure}
	if !slices.Equal(got, exp) {
		t.Errorf("controller\n got %v\nwant %v", got, exp)
	}
	if c.WebhookURLForController() != w.WebhookBaseURL+"/"+w.ControllerID {
		t.Errorf("controller webhook URL %s: existing webhooks would stop working", c.WebhookURLForController())
	}
	wu := want.Users[0]
	u, err := st.UserByName(ctx, wu.Username)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != wu.ID || u.Email != wu.Email || u.FullName != wu.FullName || u.IsAdmin != wu.IsAdmin ||
		u.Enabled != wu.Enabled || u.Generation != wu.Generation || u.PasswordHash != wu.PasswordBcrypt {
		t.Errorf("user %+v, want %+v", u, wu)
	}
	if !auth.CheckPassword(u.PasswordHash, wu.PasswordCleartext) {
		t.Error("the admin's GARM password does not log in")
	}
}

func checkEndpoints(t *testing.T, st store.Store, want expected) {
	for _, w := range want.Endpoints {
		e, err := st.Endpoint(t.Context(), w.Name)
		if err != nil {
			t.Fatalf("endpoint %s: %v", w.Name, err)
		}
		pem := ""
		if w.CABundlePEM != nil {
			pem = *w.CABundlePEM
		}
		if string(e.Type) != w.Type || e.Description != w.Description || e.BaseURL != w.BaseURL ||
			e.APIBaseURL != w.APIBaseURL || e.UploadBaseURL != w.UploadBaseURL || e.ToolsMetadataURL != w.ToolsMetadataURL ||
			e.UseInternalToolsMetadata != w.UseInternalToolsMetadata || string(e.CACertBundle) != pem {
			t.Errorf("endpoint %s: got %+v", w.Name, e)
		}
	}
}

func checkCredentials(t *testing.T, st store.Store, want expected, rep *Report) {
	ctx := t.Context()
	for _, w := range want.GitHubCredentials {
		c, err := st.Credentials(ctx, w.ID)
		if err != nil {
			t.Fatalf("GitHub credentials %d: %v", w.ID, err)
		}
		checkCreds(t, c, w, garrison.GitHub)
	}
	// Gitea credentials 1 collides with GitHub credentials 1 in garrison's one id space.
	wantRenum := Renumbering{Kind: "gitea credentials", Name: "acme-gitea-pat", Old: 1, New: 3}
	if !slices.Contains(rep.Renumbered, wantRenum) {
		t.Errorf("renumbered %+v, want %+v", rep.Renumbered, wantRenum)
	}
	c, err := st.Credentials(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkCreds(t, c, want.GiteaCredentials[0], garrison.Gitea)
}

func checkCreds(t *testing.T, c garrison.Credentials, w expectedCreds, forge garrison.ForgeType) {
	t.Helper()
	if c.Name != w.Name || c.Description != w.Description || c.Endpoint != w.Endpoint || string(c.AuthType) != w.AuthType || c.ForgeType != forge {
		t.Errorf("credentials %s: %+v", w.Name, c)
	}
	if w.App == nil {
		if c.PAT != w.PATToken {
			t.Errorf("credentials %s: PAT does not open to the manifest's token", w.Name)
		}
		return
	}
	if c.AppID != w.App.AppID || c.InstallationID != w.App.InstallationID || string(c.PrivateKey) != w.App.PrivateKeyPEM {
		t.Errorf("credentials %s: app %d/%d, key equal %v", w.Name, c.AppID, c.InstallationID, string(c.PrivateKey) == w.App.PrivateKeyPEM)
	}
}

func checkEntities(t *testing.T, st store.Store, want expected) {
	credID := map[string]uint{"acme-pat": 1, "acme-app": 2, "acme-gitea-pat": 3}
	for _, set := range []struct {
		typ  garrison.EntityType
		want []expectedEntity
	}{{garrison.Repository, want.Repositories}, {garrison.Organization, want.Organizations}, {garrison.Enterprise, want.Enterprises},
		{garrison.ForgeInstance, want.ForgeInstances}} {
		for _, w := range set.want {
			if set.typ == garrison.ForgeInstance {
				w.Name = w.Endpoint // a forge instance is named by its endpoint
			}
			e, err := st.Entity(t.Context(), w.ID)
			if err != nil {
				t.Fatalf("%s %s: %v", set.typ, w.Name, err)
			}
			if e.Type != set.typ || e.Owner != w.Owner || e.Name != w.Name || e.Endpoint != w.Endpoint ||
				string(e.ForgeType) != w.ForgeType || e.CredentialsID != credID[w.Credentials.Name] ||
				e.WebhookSecret != w.WebhookSecret || string(e.Balancer) != w.BalancerAPI || e.AgentMode != w.AgentMode {
				t.Errorf("%s %s: got %+v", set.typ, w.Name, e)
			}
			evs, err := st.EntityEvents(t.Context(), w.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got, exp []string
			for _, ev := range evs {
				got = append(got, string(ev.Type)+"/"+string(ev.Level)+"/"+ev.Message)
			}
			for _, ev := range w.Events {
				exp = append(exp, ev.EventType+"/"+ev.EventLevel+"/"+ev.Message)
			}
			if !slices.Equal(got, exp) {
				t.Errorf("%s %s events\n got %q\nwant %q", set.typ, w.Name, got, exp)
			}
		}
	}
	ents, _ := st.ListEntities(t.Context(), store.EntityFilter{})
	if len(ents) != 8 {
		t.Errorf("%d entities, want the 7 repositories, organizations and enterprises and the forge instance", len(ents))
	}
}

func checkPools(t *testing.T, st store.Store, want expected) {
	n := 0
	for _, w := range want.Pools {
		p, err := st.Pool(t.Context(), w.ID)
		n++
		if err != nil {
			t.Fatalf("pool %s: %v", w.ID, err)
		}
		tags := p.TagNames()
		slices.Sort(tags)
		if p.EntityID != w.Entity.ID || p.ProviderName != w.ProviderName || p.Image != w.Image || p.Flavor != w.Flavor ||
			p.OSType != w.OSType || p.OSArch != w.OSArch || !slices.Equal(tags, w.Tags) || p.MinIdleRunners != w.MinIdleRunners ||
			p.MaxRunners != w.MaxRunners || p.RunnerPrefix != w.RunnerPrefix || p.RunnerBootstrapTimeout != w.RunnerBootstrapTimeout ||
			p.Priority != w.Priority || p.Enabled != w.Enabled || p.EnableShell != w.EnableShell || p.RunnerGroup != w.RunnerGroup ||
			p.Generation != w.Generation || !sameJSON(p.ExtraSpecs, w.ExtraSpecs) || p.TemplateID != expectedTemplateID(w) || p.ProxyID != expectedProxyID(want, w) {
			t.Errorf("pool %s:\n got %+v\nwant %+v", w.ID, p, w)
		}
	}
	pools, _ := st.ListPools(t.Context(), store.PoolFilter{})
	if len(pools) != n {
		t.Errorf("%d pools, want %d", len(pools), n)
	}
}

// expectedProxyID is the id of the pool's proxy in the manifest, 0 for none.
func expectedProxyID(want expected, w expectedPool) uint {
	if w.Proxy == nil {
		return 0
	}
	for _, px := range want.Proxies {
		if px.Name == w.Proxy.Name {
			return px.ID
		}
	}
	return 0
}

// checkProxiesAndObjects: the proxy keeps its id and opens to the manifest's credentials;
// the object keeps its id, tags and content.
func checkProxiesAndObjects(t *testing.T, st store.Store, want expected) {
	for _, w := range want.Proxies {
		px, err := st.Proxy(t.Context(), w.ID)
		if err != nil {
			t.Fatalf("proxy %s: %v", w.Name, err)
		}
		if px.Name != w.Name || px.Description != w.Description || px.HTTPProxy != w.HTTPProxy || px.HTTPSProxy != w.HTTPSProxy ||
			px.NoProxy != w.NoProxy || px.Username != w.Username || px.Password != w.Password {
			t.Errorf("proxy %d: got %+v", w.ID, px)
		}
	}
	for _, w := range want.Objects {
		o, err := st.Object(t.Context(), w.ID)
		if err != nil {
			t.Fatalf("object %s: %v", w.Name, err)
		}
		if o.Name != w.Name || o.Description != w.Description || o.Size != w.Size || o.SHA256 != w.SHA256 ||
			o.FileType != w.FileType || !slices.Equal(o.Tags, w.Tags) {
			t.Errorf("object %d: got %+v, want %+v", w.ID, o, w)
		}
		h := sha256.New()
		if err := st.WriteObjectContent(t.Context(), w.ID, h); err != nil || hex.EncodeToString(h.Sum(nil)) != w.SHA256 {
			t.Errorf("object %d content: sha256 %x, %v", w.ID, h.Sum(nil), err)
		}
	}
}

// sameJSON compares two JSON documents by value ("null" and absent are the same).
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	_ = json.Unmarshal(a, &va)
	_ = json.Unmarshal(b, &vb)
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

func checkInstances(t *testing.T, st store.Store, want expected) {
	all, _ := st.ListInstances(t.Context(), store.InstanceFilter{})
	if len(all) != len(want.Instances) {
		t.Errorf("%d instances, want %d", len(all), len(want.Instances))
	}
	for _, w := range want.Instances {
		i, err := st.InstanceByID(t.Context(), w.ID)
		if err != nil {
			t.Fatalf("instance %s: %v", w.Name, err)
		}
		if i.Name != w.Name || i.ProviderID != w.ProviderID || i.PoolID != w.PoolID || i.ProviderName != w.ProviderName ||
			string(i.Status) != w.Status || string(i.RunnerStatus) != w.RunnerStatus || i.AgentID != w.AgentID ||
			i.OSType != w.OSType || i.OSArch != w.OSArch || i.OSName != w.OSName || i.OSVersion != w.OSVersion ||
			i.CreateAttempt != w.CreateAttempt || i.TokenFetched != w.TokenFetched || i.RunnerGroup != w.RunnerGroup ||
			i.Generation != w.Generation || i.CallbackURL != w.CallbackURL || i.MetadataURL != w.MetadataURL {
			t.Errorf("instance %s:\n got %+v\nwant %+v", w.Name, i, w)
		}
		if len(i.Addresses) != len(w.Addresses) || (len(w.Addresses) > 0 && i.Addresses[0] != garrison.Address(w.Addresses[0])) {
			t.Errorf("instance %s addresses %+v", w.Name, i.Addresses)
		}
		var got, exp []string
		for _, m := range i.StatusMessages {
			got = append(got, string(m.Type)+"/"+m.Message)
		}
		for _, m := range w.StatusMessages {
			exp = append(exp, m.EventType+"/"+m.Message)
		}
		if !slices.Equal(got, exp) {
			t.Errorf("instance %s status messages\n got %q\nwant %q", w.Name, got, exp)
		}
		checkJIT(t, i, w)
	}
	// GARM's updated_at is kept: the bootstrap timeout counts from it, as in GARM.
	i, _ := st.Instance(t.Context(), "wid-e7ublmqlzzu2")
	if want := time.Date(2026, 11, 24, 12, 44, 11, 203859000, time.UTC); !i.UpdatedAt.Equal(want) {
		t.Errorf("updated at %v, want GARM's %v", i.UpdatedAt, want)
	}
}

// checkJIT compares the re-sealed JIT configuration with the manifest's: the same files,
// the runner's .runner settings and its .credentials client id.
func checkJIT(t *testing.T, i garrison.Instance, w expectedInstance) {
	t.Helper()
	if w.JITConfiguration == nil {
		if len(i.JITConfig) != 0 {
			t.Errorf("instance %s has a JIT config, GARM had none", w.Name)
		}
		return
	}
	files := slices.Sorted(func(yield func(string) bool) {
		for k := range i.JITConfig {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(files, w.JITConfiguration.Files) {
		t.Fatalf("instance %s JIT files %v, want %v", w.Name, files, w.JITConfiguration.Files)
	}
	var runner map[string]string
	decodeJITFile(t, i.JITConfig[".runner"], &runner)
	for k, v := range w.JITConfiguration.Runner {
		if runner[k] != v {
			t.Errorf("instance %s .runner %s = %q, want %q", w.Name, k, runner[k], v)
		}
	}
	var creds struct {
		Data struct {
			ClientID string `json:"ClientId"`
		}
	}
	decodeJITFile(t, i.JITConfig[".credentials"], &creds)
	if creds.Data.ClientID != w.JITConfiguration.Credentials.Data.ClientID {
		t.Errorf("instance %s .credentials client id %q", w.Name, creds.Data.ClientID)
	}
}

func decodeJITFile(t *testing.T, b64 string, v any) {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), v); err != nil {
		t.Fatalf("JIT file: %v", err)
	}
}

func checkJobs(t *testing.T, st store.Store, want expected) {
	jobs, err := st.ListJobs(t.Context(), store.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != len(want.Jobs) {
		t.Fatalf("%d jobs, want %d", len(jobs), len(want.Jobs))
	}
	widgets := "a9efdfeb-f835-4c99-8244-a70b130ef1a0"
	for k, w := range want.Jobs {
		j := jobs[k]
		runner := ""
		if w.Instance != nil {
			runner = *w.Instance
		}
		if j.ID != w.WorkflowJobID || j.RunID != w.RunID || j.Name != w.Name || string(j.Action) != w.Action ||
			j.Status != w.Status || !slices.Equal(j.Labels, w.Labels) || j.RepositoryOwner != w.RepositoryOwner ||
			j.RepositoryName != w.RepositoryName || j.WorkflowRunURL != w.WorkflowRunURL || j.RunnerID != w.GitHubRunnerID ||
			j.RunnerName != runner || j.EntityID != widgets || j.EntityType != garrison.Repository || j.LockedBy != "" {
			t.Errorf("job %d:\n got %+v\nwant %+v", w.WorkflowJobID, j, w)
		}
	}
	if !jobs[1].StartedAt.IsZero() || jobs[0].StartedAt.IsZero() {
		t.Errorf("started at: in progress %v, queued %v", jobs[0].StartedAt, jobs[1].StartedAt)
	}
	i, err := st.Instance(t.Context(), "wid-e7ublmqlzzu2")
	if err != nil || i.JobID != 120 {
		t.Errorf("the runner of job 120 is not linked to it: job id %d, %v", i.JobID, err)
	}
}

func checkFixtureReport(t *testing.T, rep *Report) {
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, line := range []string{
		"4 system templates imported with garrison's own install scripts",
		"forge instances 1 · ",
		"proxies 1 · file objects 1",
		"2 jobs referenced several entities",
		"gitea credentials \"acme-gitea-pat\": id 1 → 3",
		"secrets  18/18 opened (18 envelope, 0 legacy)",
		"garrison adopts GARM's JWT secret",
		"result   imported in ",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("the report lacks %q:\n%s", line, text)
		}
	}
	if strings.Contains(text, fixturePassphrase) || strings.Contains(text, "ghp_acme") || strings.Contains(text, "hook-secret") {
		t.Errorf("the report shows a secret:\n%s", text)
	}
	if s, ok := rep.AdoptJWTSecret(); !ok || s != fixtureJWTSecret {
		t.Error("GARM's JWT secret is not offered for adoption")
	}
	js, _ := json.Marshal(rep)
	if bytes.Contains(js, []byte(fixtureJWTSecret)) {
		t.Error("the JSON report holds the JWT secret")
	}
}

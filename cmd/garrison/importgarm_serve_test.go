package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

// TestImportGARMServe imports the fixture, then runs a garrison server on the imported
// data with the simulation provider as "lxd" and the forge simulator as GARM's forges:
// the REST API lists GARM's pools and runners, the imported credentials work against the
// forge, a webhook signed with an imported secret and sent to GARM's controller id is
// taken, and the reconciler adopts the five runners, deleting and duplicating none.
//
// The provider's side of GARM's runners is not in the fixture (the sim provider's state
// directory was GARM's private one), so the test records them in the sim provider first,
// as its CreateInstance did for GARM: same names, provider ids, pools and controller id.
func TestImportGARMServe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and builds the sim provider")
	}
	ctx := t.Context()
	sim, forgeURL := newForgeForGARM(t)
	garmDir, garmCfg := copyGARM(t, forgeURL)
	stoppedAMinuteAgo(t, garmDir)
	data, state := t.TempDir(), t.TempDir()
	gcfg := garrisonWithSim(t, state)
	if code, out := importGARM(t, "--garm-config", garmCfg, "--data-dir", data, "--config", gcfg, "--skip-unsupported"); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, out)
	}
	readImported(t, data, gcfg, func(st store.Store) { checkCredentialsWork(t, st) })
	prov := recordGARMRunners(t, state)

	addr := freeAddr(t)
	out, _ := inProcessServer(t, "--data-dir", data, "--config", gcfg, "--listen", addr)
	api := loginAsGARMAdmin(t, "http://"+addr)
	checkGARMToken(t, "http://"+addr)
	checkPoolsAndRunners(t, api)

	waitFor(t, "the reconciler to repair every pool once", func() bool {
		return strings.Contains(out.String(), "reconcile: every pool repaired since the start")
	})
	checkAdopted(t, api, prov)

	// The webhook GARM installed on acme/widgets: its URL names GARM's controller id, its
	// secret is the one GARM generated (the API never shows it; the manifest does).
	if _, err := sim.AddHook("repos/acme/widgets", "http://"+addr+"/webhooks/"+garmController, garmWidgetsSecret, garrison.GitHub); err != nil {
		t.Fatal(err)
	}
	jobID, err := sim.QueueJob("acme/widgets", "linux", "x64")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "garrison to record the job of the webhook", func() bool {
		jobs, err := api.ListJobs(ctx)
		return err == nil && slices.ContainsFunc(jobs, func(j apiv1.Job) bool { return j.WorkflowJobID == jobID })
	})
	checkAdopted(t, api, prov)
}

// stoppedAMinuteAgo makes the fixture's runners last heard of a minute ago, as after a
// GARM stopped for the cut-over: the fixture is older than its pools' bootstrap timeouts,
// and garrison (like GARM) would rightly replace booting runners that late. A minute is
// also well past the margin within which the reconciler's repair does not judge a
// record, so the first repair does check the imported runners against the provider.
func stoppedAMinuteAgo(t *testing.T, garmDir string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(garmDir, "garm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ago := func(d time.Duration) string {
		return time.Now().UTC().Add(-d).Format("2006-01-02 15:04:05.999999999-07:00")
	}
	if _, err := db.Exec(`UPDATE instances SET created_at = ?, updated_at = ?`, ago(2*time.Minute), ago(time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// checkCredentialsWork asks the forge simulator for runner registration tokens with each
// imported credential: the GitHub PAT, the GitHub App and the Gitea token.
func checkCredentialsWork(t *testing.T, st store.Store) {
	ctx := t.Context()
	for _, tc := range []struct {
		entity string
		credID uint
	}{
		{garmWidgets, 1}, // acme/widgets, PAT acme-pat
		{"ba24aa00-bb56-4fdc-9a20-6080a54142ac", 2}, // acme/docs, App acme-app
		{"36980247-2373-4034-9b8c-1d1338d64273", 3}, // acme/gitrepo, Gitea acme-gitea-pat (renumbered)
	} {
		e := entityByID(t, st, tc.entity)
		if e.CredentialsID != tc.credID {
			t.Fatalf("%s uses credentials %d, want %d", e.FullName(), e.CredentialsID, tc.credID)
		}
		cred, err := st.Credentials(ctx, e.CredentialsID)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := st.Endpoint(ctx, cred.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		var c interface {
			RegistrationToken(ctx context.Context, e garrison.Entity) (string, error)
		}
		if cred.ForgeType == garrison.Gitea {
			c, err = gitea.New(ep, cred, gitea.Options{})
		} else {
			c, err = github.New(ep, cred, github.Options{})
		}
		if err != nil {
			t.Fatalf("%s with %s: %v", e.FullName(), cred.Name, err)
		}
		token, err := c.RegistrationToken(ctx, e)
		if err != nil {
			t.Fatalf("%s with %s: %v", e.FullName(), cred.Name, err)
		}
		if token == "" {
			t.Errorf("%s with %s: empty registration token", e.FullName(), cred.Name)
		}
	}
}

// recordGARMRunners records the fixture's five runners in the sim provider, as its
// CreateInstance did for GARM (provider id "sim-<name>", GARM's controller and pool ids).
func recordGARMRunners(t *testing.T, state string) *simprovider.Provider {
	t.Helper()
	p, err := simprovider.NewWithConfig(simprovider.Config{StateDir: state}, sdk.Environment{ControllerID: garmController})
	if err != nil {
		t.Fatal(err)
	}
	for name, pool := range garmRunners {
		pi, err := p.CreateInstance(t.Context(), provider.BootstrapInstance{Name: name, PoolID: pool, OSType: "linux", OSArch: "amd64"})
		if err != nil || pi.ProviderID != "sim-"+name {
			t.Fatalf("recording %s: %+v, %v", name, pi, err)
		}
	}
	return p
}

// loginAsGARMAdmin logs in with GARM's admin password.
func loginAsGARMAdmin(t *testing.T, url string) *apiclient.Client {
	t.Helper()
	api, err := apiclient.New(url, "")
	if err != nil {
		t.Fatal(err)
	}
	token, err := api.Login(t.Context(), apiv1.PasswordLoginParams{Username: "admin", Password: garmAdminPass})
	if err != nil {
		t.Fatalf("logging in with GARM's admin password: %v", err)
	}
	api.SetToken(token)
	return api
}

// checkGARMToken: a token signed with GARM's JWT secret for GARM's admin (as a garm-cli
// profile holds) works on garrison, and `controller show` gives GARM's controller id and
// webhook URL.
func checkGARMToken(t *testing.T, url string) {
	t.Helper()
	tokens, err := auth.NewTokens([]byte(garmJWTSecret), time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokens.MintAdmin(garrison.User{ID: "13362344-1bd2-472d-96b3-fe724960aabe", Username: "admin",
		FullName: "Acme Admin", IsAdmin: true, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	api, err := apiclient.New(url, tok)
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.GetController(t.Context())
	if err != nil {
		t.Fatalf("a token signed with GARM's secret: %v", err)
	}
	if c.ControllerID != garmController || c.ControllerWebhookURL != "http://127.0.0.1:9510/webhooks/"+garmController {
		t.Errorf("controller show: id %s, webhook URL %s", c.ControllerID, c.ControllerWebhookURL)
	}
}

// checkPoolsAndRunners: `pool list` and `runner list` show GARM's pools and runners.
func checkPoolsAndRunners(t *testing.T, api *apiclient.Client) {
	t.Helper()
	pools, err := api.ListPools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(pools) != 9 {
		t.Errorf("pool list: %d pools, want GARM's 9 (its forge instance's pool included)", len(pools))
	}
	fiPool := slices.IndexFunc(pools, func(p apiv1.Pool) bool { return p.ID == "065d7906-c92d-4978-b160-c5192ce73db5" })
	if fiPool < 0 || pools[fiPool].ForgeInstanceID != "248984ad-42b1-42a5-8135-7cfedca764b9" {
		t.Errorf("the forge instance's pool is not listed on its forge instance")
	}
	for _, p := range pools {
		if p.ProviderName != "lxd" || len(p.Tags) == 0 {
			t.Errorf("pool %s: provider %q, tags %v", p.ID, p.ProviderName, p.Tags)
		}
	}
	runners, err := api.ListInstances(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range runners {
		got[r.Name] = r.PoolID
		if r.ProviderID != "sim-"+r.Name || r.Status != "running" {
			t.Errorf("runner %s: provider id %q, status %s", r.Name, r.ProviderID, r.Status)
		}
	}
	for name, pool := range garmRunners {
		if got[name] != pool {
			t.Errorf("runner list: %s in pool %q, want %s", name, got[name], pool)
		}
	}
}

// checkAdopted: GARM's five runners are still there, running, in garrison and in the
// provider; no name is taken twice; and garrison and the provider agree on every
// instance (nothing leaked, nothing duplicated).
func checkAdopted(t *testing.T, api *apiclient.Client, prov *simprovider.Provider) {
	t.Helper()
	runners, err := api.ListInstances(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string]apiv1.Instance{}
	for _, r := range runners {
		if _, dup := mine[r.Name]; dup {
			t.Errorf("runner %s listed twice", r.Name)
		}
		mine[r.Name] = r
	}
	recs, err := prov.ListInstances(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	theirs := map[string]bool{}
	for _, r := range recs {
		theirs[r.Name] = true
	}
	for name := range garmRunners {
		r, ok := mine[name]
		if !ok || r.Status != "running" || !theirs[name] {
			t.Errorf("GARM's runner %s: in garrison %v (status %s), in the provider %v", name, ok, r.Status, theirs[name])
		}
	}
	for name := range theirs {
		if _, ok := mine[name]; !ok {
			t.Errorf("the provider has %s, garrison does not: leaked", name)
		}
	}
	for name, r := range mine {
		if !theirs[name] && r.Status == "running" {
			t.Errorf("garrison has %s running, the provider does not", name)
		}
	}
	t.Logf("%d runners: %s", len(mine), strings.Join(slices.Sorted(func(yield func(string) bool) {
		for n, r := range mine {
			if !yield(fmt.Sprintf("%s(%s/%s)", n, r.Status, r.RunnerStatus)) {
				return
			}
		}
	}), " "))
}

package testbed_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestE2EForgeInstancePool checks rest-api-2 §4 end to end: the simulator plays a Gitea
// server; garrison manages it as a forge instance whose system webhook is installed
// through the API; a job queued on one of the server's repositories is delivered by that
// hook, and a runner of the forge-instance pool (registered at the admin scope, with the
// stand-in act_runner booted by the real install script) runs it.
func TestE2EForgeInstancePool(t *testing.T) {
	skipE2E(t)
	base := t.TempDir()
	b, err := testbed.New(testbed.Options{JobDuration: 300 * time.Millisecond, BootDelay: 50 * time.Millisecond,
		BaseDir: base, Tools: helperTools(t)})
	if err != nil {
		t.Fatalf("starting the bed: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log (tail):\n%s", serverLogTail(base))
		}
		if err := b.Close(false); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	runner, err := os.ReadFile(b.Path("bin", "garrison-standin-runner"))
	if err != nil {
		t.Fatal(err)
	}
	b.Sim.SetRunnerBinary(runner) // the Gitea runner download is the stand-in itself
	// The provider's runner cache holds the GitHub-style archive; add the Gitea runner.
	if err := os.WriteFile(b.Path("runner-cache", "gitea-runner"), runner, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := b.Path("config-webhooks.toml") // the bed's config, with webhook management on
	if err := os.WriteFile(cfg, []byte("[default]\nenable_webhook_management = true\n\n"+b.ServerConfig(b.ProviderScript())), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.StartServer(context.Background(), testbed.ServerOptions{ConfigFile: cfg}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := b.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetControllerURLs(ctx); err != nil {
		t.Fatal(err)
	}
	fi, pool := addForgeInstance(t, b)

	// The system hook is installed through the API, at the admin scope.
	hook, err := b.API.InstallWebhook(ctx, apiclient.ForgeInstances, fi.ID, apiv1.InstallWebhookParams{WebhookEndpointType: "direct"})
	if err != nil {
		t.Fatalf("installing the system hook: %v", err)
	}
	var system bool
	for _, h := range b.Sim.Hooks() {
		system = system || (h.ID == hook.ID && h.Scope == "admin" && h.Config["is_system_webhook"] == "true" && h.BranchFilter == "*")
	}
	if !system {
		t.Fatalf("hooks %+v: want a system hook %d at the admin scope", b.Sim.Hooks(), hook.ID)
	}

	e := &e2eEnv{Bed: b}
	ids := e.queueJobs(t, 1, 300*time.Millisecond, "gitea-fi")
	eventually(t, "the job ran on a forge-instance runner", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		state := describe(insts)
		for _, in := range insts {
			if full, err := b.API.GetInstance(ctx, in.Name); err == nil {
				for _, m := range full.StatusMessages {
					state += "\n  " + in.Name + ": " + m.Message
				}
			}
		}
		return e.CompletedJobs(ids) == 1, state
	})
	j, _ := b.Sim.Job(ids[0])
	if j.RunnerName == "" || !strings.HasPrefix(j.RunnerName, "garm-") {
		t.Fatalf("job %+v did not run on a garrison runner", j)
	}
	// Ephemeral runners are gone by now: the admin-scope registration token says where
	// the runner registered.
	admin := 0
	for k, n := range b.Sim.Calls() {
		if k.Route == "POST /api/v1/admin/actions/runners/registration-token" {
			admin += n
		}
	}
	if admin == 0 {
		t.Fatalf("no admin-scope registration token was requested; calls %v", b.Sim.Calls())
	}
	jobs, err := b.API.ListJobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, gj := range jobs {
		if gj.WorkflowJobID == ids[0] && (gj.ForgeInstanceID == nil || *gj.ForgeInstanceID != fi.ID) {
			t.Fatalf("job %+v not recorded for the forge instance %s", gj, fi.ID)
		}
	}
	e.expectRunnersGone(t, map[string]int64{j.RunnerName: ids[0]})
}

// addForgeInstance adds the simulator as a Gitea endpoint, its credentials, the forge
// instance and an enabled pool on it (tag gitea-fi, no idle runners).
func addForgeInstance(t *testing.T, b *testbed.Bed) (apiv1.ForgeInstance, apiv1.Pool) {
	t.Helper()
	ctx, simURL := t.Context(), b.Sim.URL()
	tools := simURL + "/api/v1/repos/gitea/runner/releases"
	if _, err := b.API.CreateGiteaEndpoint(ctx, apiv1.CreateGiteaEndpointParams{Name: "sim-gitea", Description: "simulated Gitea",
		BaseURL: simURL, APIBaseURL: simURL + "/api/v1", ToolsMetadataURL: tools}); err != nil {
		t.Fatalf("creating the Gitea endpoint: %v", err)
	}
	if _, err := b.API.CreateCredentials(ctx, apiclient.Gitea, apiv1.CreateCredentialsParams{Name: "sim-gitea-pat",
		Endpoint: "sim-gitea", AuthType: "pat", PAT: apiv1.GithubPAT{OAuth2Token: b.PAT}}); err != nil {
		t.Fatalf("adding the Gitea credentials: %v", err)
	}
	fi, err := b.API.CreateForgeInstance(ctx, apiv1.CreateForgeInstanceParams{EndpointName: "sim-gitea",
		CredentialsName: "sim-gitea-pat", WebhookSecret: testbed.RandomToken(24), ForgeType: "gitea"})
	if err != nil {
		t.Fatalf("adding the forge instance: %v", err)
	}
	pool, err := b.API.CreatePool(ctx, apiclient.ForgeInstances, fi.ID, apiv1.CreatePoolParams{ProviderName: testbed.ProviderName,
		MaxRunners: 2, Image: "e2e", Flavor: "small", OSType: "linux", OSArch: "amd64", Tags: []string{"gitea-fi"}, Enabled: true})
	if err != nil {
		t.Fatalf("creating the forge-instance pool: %v", err)
	}
	b.PoolIDs = append(b.PoolIDs, pool.ID)
	return fi, pool
}

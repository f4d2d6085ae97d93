package github_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

const pat = "ghp_test"

var (
	repoEntity = garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app"}
	orgEntity  = garrison.Entity{Type: garrison.Organization, Name: "acme"}
	entEntity  = garrison.Entity{Type: garrison.Enterprise, Name: "corp"}
)

func startSim(t *testing.T, opts forgesim.Options) (*forgesim.Sim, string) {
	t.Helper()
	sim := forgesim.New(opts)
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken(pat)
	sim.AddOrg("acme", "corp")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	return sim, url
}

// form is one way to reach the simulator.
type form struct {
	name  string
	api   string // relative to the sim URL
	exact bool
}

var forms = []form{
	{"github.com root", "/", true},
	{"GHES /api/v3 appended", "/", false},
	{"GHES /api/v3 given", "/api/v3/", false},
}

func newClient(t *testing.T, url string, f form, cred garrison.Credentials) *github.Client {
	t.Helper()
	ep := garrison.Endpoint{Name: "sim", Type: garrison.GitHub, BaseURL: url, APIBaseURL: url + f.api, UploadBaseURL: url + f.api}
	c, err := github.New(ep, cred, github.Options{ExactAPIBaseURL: f.exact})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func patCreds() garrison.Credentials {
	return garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: pat}
}

func appCreds(t *testing.T, sim *forgesim.Sim) garrison.Credentials {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	sim.AddApp(42, &key.PublicKey, 7)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return garrison.Credentials{Name: "app", AuthType: garrison.AuthApp, AppID: 42, InstallationID: 7, PrivateKey: pemKey}
}

func TestOperations(t *testing.T) {
	for _, f := range forms {
		for _, auth := range []string{"pat", "app"} {
			t.Run(f.name+"/"+auth, func(t *testing.T) {
				sim, url := startSim(t, forgesim.Options{})
				cred := patCreds()
				if auth == "app" {
					cred = appCreds(t, sim)
				}
				c := newClient(t, url, f, cred)
				testRunners(t, sim, c)
				testHooks(t, sim, c, url)
				testQueuedJobs(t, sim, c)
				if auth == "app" && sim.Calls()[forgesim.CallKey{Route: "POST /app/installations/{id}/access_tokens", Credential: "app:42"}] == 0 {
					t.Fatal("no installation token was fetched")
				}
			})
		}
	}
}

func testRunners(t *testing.T, sim *forgesim.Sim, c *github.Client) {
	ctx := t.Context()
	if _, err := sim.AddRunnerGroup("acme", "gpu", false); err != nil {
		t.Fatal(err)
	}
	for _, e := range []garrison.Entity{repoEntity, orgEntity, entEntity} {
		group := ""
		if e.Type == garrison.Organization {
			group = "GPU"
		}
		cfg, err := c.CreateJITConfig(ctx, e, garrison.JITRequest{Name: "jit-" + string(e.Type), RunnerGroup: group, Labels: []string{"self-hosted", "linux"}})
		if err != nil {
			t.Fatalf("%s: jit: %v", e.Type, err)
		}
		if cfg.RunnerID == 0 || len(cfg.Files) != 3 {
			t.Fatalf("jit config: %+v", cfg)
		}
		if _, err := base64.StdEncoding.DecodeString(cfg.Files[".runner"]); err != nil {
			t.Fatal(err)
		}
		_, err = c.CreateJITConfig(ctx, e, garrison.JITRequest{Name: "jit-" + string(e.Type), RunnerGroup: group, Labels: []string{"x"}})
		if !errors.Is(err, garrison.ErrConflict) {
			t.Fatalf("duplicate: %v", err)
		}
		tok, err := c.RegistrationToken(ctx, e)
		if err != nil || tok == "" {
			t.Fatalf("registration token: %q %v", tok, err)
		}
		rs, err := c.ListRunners(ctx, e)
		if err != nil || len(rs) != 1 || rs[0].ID != cfg.RunnerID || rs[0].Status != "offline" {
			t.Fatalf("list: %+v %v", rs, err)
		}
		if err := c.DeleteRunner(ctx, e, cfg.RunnerID); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteRunner(ctx, e, cfg.RunnerID); !errors.Is(err, garrison.ErrNotFound) {
			t.Fatalf("delete gone: %v", err)
		}
		ds, err := c.RunnerDownloads(ctx, e)
		if err != nil || len(ds) == 0 || ds[0].DownloadURL == "" {
			t.Fatalf("downloads: %v %v", ds, err)
		}
	}
	if _, err := c.RunnerDownloads(ctx, repoEntity); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateJITConfig(ctx, orgEntity, garrison.JITRequest{Name: "x", RunnerGroup: "nope", Labels: []string{"x"}}); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("unknown group: %v", err)
	}
}

func testHooks(t *testing.T, sim *forgesim.Sim, c *github.Client, url string) {
	ctx := t.Context()
	target := url + "/_sim/downloads/hook" // any URL; deliveries fail (404), which is fine here
	for _, e := range []garrison.Entity{repoEntity, orgEntity} {
		h, err := c.InstallHook(ctx, e, target, "s3cr3t")
		if err != nil || h.ID == 0 {
			t.Fatalf("install: %+v %v", h, err)
		}
		if _, err := c.InstallHook(ctx, e, target, "s3cr3t"); !errors.Is(err, garrison.ErrConflict) {
			t.Fatalf("install twice: %v", err)
		}
		got, err := c.FindHook(ctx, e, target)
		if err != nil || got.ID != h.ID {
			t.Fatalf("find: %+v %v", got, err)
		}
		if err := sim.WaitDeliveries(ctx); err != nil {
			t.Fatal(err)
		}
		ds, err := c.ListHookDeliveries(ctx, e, h.ID, time.Time{})
		if err != nil || len(ds) != 1 || ds[0].Event != "ping" {
			t.Fatalf("deliveries: %+v %v", ds, err)
		}
		if err := c.Redeliver(ctx, e, h.ID, ds[0].ID); err != nil {
			t.Fatalf("redeliver: %v", err)
		}
		_ = sim.WaitDeliveries(ctx)
		ds, err = c.ListHookDeliveries(ctx, e, h.ID, time.Time{})
		if err != nil || len(ds) != 2 || !ds[0].Redelivery || ds[0].GUID != ds[1].GUID {
			t.Fatalf("after redelivery: %+v %v", ds, err)
		}
		if err := c.RemoveHook(ctx, e, target); err != nil {
			t.Fatal(err)
		}
		if _, err := c.FindHook(ctx, e, target); !errors.Is(err, garrison.ErrNotFound) {
			t.Fatalf("removed hook found: %v", err)
		}
	}
	if _, err := c.InstallHook(ctx, entEntity, target, "x"); !errors.Is(err, garrison.ErrInvalid) {
		t.Fatalf("enterprise hook: %v", err)
	}
}

func testQueuedJobs(t *testing.T, sim *forgesim.Sim, c *github.Client) {
	ctx := t.Context()
	a, _ := sim.QueueJob("acme/app", "linux")
	b, _ := sim.QueueJob("acme/app", "gpu")
	tok, err := c.RegistrationToken(ctx, repoEntity)
	if err != nil {
		t.Fatal(err)
	}
	rn, err := sim.RegisterRunner(tok, "taker", []string{"linux"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if j, err := sim.Acquire("taker", rn.Secret); err != nil || j.ID != a {
		t.Fatalf("acquire: %v %v", j, err)
	}
	if _, err := sim.StartJob(a, rn.Secret); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteRunner(ctx, repoEntity, rn.ID); !errors.Is(err, garrison.ErrUnprocessable) {
		t.Fatalf("delete busy: %v", err)
	}
	jobs, err := c.QueuedJobs(ctx, repoEntity)
	if err != nil || len(jobs) != 1 || jobs[0].ID != b || jobs[0].Labels[0] != "gpu" {
		t.Fatalf("queued jobs: %+v %v", jobs, err)
	}
	if jobs, err := c.QueuedJobs(ctx, orgEntity); err != nil || len(jobs) != 0 {
		t.Fatalf("queued jobs of an organization: %+v %v, want none (GitHub lists runs per repository)", jobs, err)
	}
	wantRunPage(t, jobs[0])
}

func TestPaginationAndETag(t *testing.T) {
	sim, url := startSim(t, forgesim.Options{})
	c := newClient(t, url, forms[0], patCreds())
	ctx := t.Context()
	tok, err := c.RegistrationToken(ctx, orgEntity)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 105 {
		if _, err := sim.RegisterRunner(tok, fmt.Sprintf("r%03d", i), []string{"x"}, false); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := c.ListRunners(ctx, orgEntity)
	if err != nil || len(rs) != 105 {
		t.Fatalf("list: %d %v", len(rs), err)
	}
	if rs[42].Name != "r042" {
		t.Fatalf("runner 42 is %q, want r042 (pages out of order)", rs[42].Name)
	}
	used := sim.Budget(pat, "core").Used
	if _, err := c.ListRunners(ctx, orgEntity); err != nil {
		t.Fatal(err)
	}
	if after := sim.Budget(pat, "core").Used; after != used {
		t.Fatalf("unchanged list charged: %d → %d", used, after)
	}
}

func TestRateLimitWait(t *testing.T) {
	sim, url := startSim(t, forgesim.Options{RateLimit: forgesim.RateLimitOptions{Limit: 3, Window: 300 * time.Millisecond}})
	obs := &observer{}
	ep := garrison.Endpoint{Name: "sim", APIBaseURL: url + "/api/v3/"}
	c, err := github.New(ep, patCreds(), github.Options{Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		if _, err := c.RegistrationToken(t.Context(), repoEntity); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	route := forgesim.CallKey{Route: "POST /repos/{owner}/{repo}/actions/runners/registration-token", Credential: pat}
	if n := sim.Calls()[route]; n != 7 {
		t.Fatalf("sim saw %d calls, want 7 (none rejected)", n)
	}
	rl := c.RateLimits()
	if len(rl) != 1 || rl[0].Resource != "core" || rl[0].Limit != 3 || rl[0].Credential != "pat" {
		t.Fatalf("RateLimits = %+v", rl)
	}
	if obs.count() == 0 {
		t.Fatal("observer not called")
	}
}

// TestLongRateLimitFailsAtOnce: a call that would have to wait long for a limit to end
// is not sent and does not wait: it fails at once with a RateLimitError naming the time,
// and the next call of the credential too, without reaching the forge.
func TestLongRateLimitFailsAtOnce(t *testing.T) {
	tests := []struct {
		name      string
		opts      forgesim.RateLimitOptions
		secondary int // status of a secondary limit of one minute before the first call (0: none)
		calls     int // the sim sees them; the third is refused at once
		wait      time.Duration
	}{
		{"primary limit spent", forgesim.RateLimitOptions{Limit: 2, Window: time.Hour}, 0, 2, 59 * time.Minute},
		{"secondary limit 403", forgesim.RateLimitOptions{}, 403, 1, 59 * time.Second},
		{"secondary limit 429", forgesim.RateLimitOptions{}, 429, 1, 59 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim, url := startSim(t, forgesim.Options{RateLimit: tt.opts})
			c := newClient(t, url, forms[0], patCreds())
			if tt.secondary != 0 {
				sim.TriggerSecondaryLimit(1, time.Minute, tt.secondary)
			}
			var err error
			for range 3 {
				if _, err = c.RegistrationToken(t.Context(), repoEntity); err != nil {
					break
				}
			}
			var rl *garrison.RateLimitError
			if !errors.As(err, &rl) || time.Until(rl.Until) < tt.wait || rl.Credentials != "pat" {
				t.Fatalf("error %v, want a rate limit of credentials pat at least %v ahead", err, tt.wait)
			}
			if garrison.CodeOf(err) != garrison.EUnavailable {
				t.Fatalf("code %s, want %s", garrison.CodeOf(err), garrison.EUnavailable)
			}
			if _, err := c.RegistrationToken(t.Context(), repoEntity); !errors.As(err, &rl) {
				t.Fatalf("next call: %v, want the rate limit again", err)
			}
			if n := sim.Calls()[forgesim.CallKey{Route: "POST /repos/{owner}/{repo}/actions/runners/registration-token", Credential: pat}]; n != tt.calls {
				t.Fatalf("the forge saw %d calls, want %d", n, tt.calls)
			}
		})
	}
}

func TestSecondaryLimit(t *testing.T) {
	for _, status := range []int{403, 429} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			sim, url := startSim(t, forgesim.Options{})
			c := newClient(t, url, forms[0], patCreds())
			sim.TriggerSecondaryLimit(1, time.Second, status)
			if _, err := c.ListRunners(t.Context(), repoEntity); err != nil {
				t.Fatal(err)
			}
			if n := sim.Calls()[forgesim.CallKey{Route: "GET /repos/{owner}/{repo}/actions/runners", Credential: pat}]; n != 2 {
				t.Fatalf("calls = %d, want 2", n)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	_, url := startSim(t, forgesim.Options{})
	bad := newClient(t, url, forms[0], garrison.Credentials{AuthType: garrison.AuthPAT, PAT: "wrong"})
	if _, err := bad.ListRunners(t.Context(), repoEntity); !errors.Is(err, garrison.ErrUnauthorized) {
		t.Fatalf("bad token: %v", err)
	}
	c := newClient(t, url, forms[0], patCreds())
	missing := garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "nope"}
	_, err := c.ListRunners(t.Context(), missing)
	if !errors.Is(err, garrison.ErrNotFound) || garrison.MessageOf(err) != "Not Found" {
		t.Fatalf("missing repo: %v", err)
	}
	if _, err := github.New(garrison.Endpoint{CACertBundle: []byte("junk")}, patCreds(), github.Options{}); !errors.Is(err, garrison.ErrInvalid) {
		t.Fatalf("bad CA bundle: %v", err)
	}
}

// wantRunPage checks a job's WorkflowRunURL is its run's web page, not the API's.
func wantRunPage(t *testing.T, j garrison.Job) {
	t.Helper()
	if want := fmt.Sprintf("/acme/app/actions/runs/%d", j.RunID); !strings.HasSuffix(j.WorkflowRunURL, want) ||
		strings.Contains(j.WorkflowRunURL, "/repos/") {
		t.Fatalf("workflow run URL %q, want the run's web page", j.WorkflowRunURL)
	}
}

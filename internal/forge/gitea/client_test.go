package gitea_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

const token = "gitea-pat"

var org = garrison.Entity{Type: garrison.Organization, Name: "acme"}

func setup(t *testing.T) (*forgesim.Sim, *gitea.Client) {
	t.Helper()
	sim := forgesim.New(forgesim.Options{})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken(token)
	sim.AddOrg("acme")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	c, err := gitea.New(garrison.Endpoint{Name: "g", Type: garrison.Gitea, BaseURL: url}, garrison.Credentials{PAT: token}, gitea.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sim, c
}

func TestRunners(t *testing.T) {
	sim, c := setup(t)
	ctx := t.Context()
	scopes := []garrison.Entity{{Type: garrison.Repository, Owner: "acme", Name: "app"}, org, gitea.Instance}
	for _, e := range scopes {
		tok, err := c.RegistrationToken(ctx, e)
		if err != nil || tok == "" {
			t.Fatalf("%q: token: %v", e.Type, err)
		}
		if again, _ := c.RegistrationToken(ctx, e); again != tok {
			t.Fatal("token not reused")
		}
		for i := range 55 {
			if _, err := sim.RegisterRunner(tok, fmt.Sprintf("r%d", i), []string{"ubuntu"}, true); err != nil {
				t.Fatal(err)
			}
		}
		rs, err := c.ListRunners(ctx, e)
		if err != nil || len(rs) != 55 || rs[0].Labels[0] != "ubuntu" || !rs[0].Ephemeral {
			t.Fatalf("list: %d %v", len(rs), err)
		}
		if r, err := c.GetRunner(ctx, e, rs[3].ID); err != nil || r.Name != "r3" {
			t.Fatalf("get: %+v %v", r, err)
		}
		if err := c.DeleteRunner(ctx, e, rs[3].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetRunner(ctx, e, rs[3].ID); !errors.Is(err, garrison.ErrNotFound) {
			t.Fatalf("deleted: %v", err)
		}
	}
	bad, _ := gitea.New(garrison.Endpoint{BaseURL: sim.URL() + "/api/v1/"}, garrison.Credentials{PAT: "nope"}, gitea.Options{})
	if _, err := bad.ListRunners(ctx, org); !errors.Is(err, garrison.ErrUnauthorized) {
		t.Fatalf("bad token: %v", err)
	}
}

type sink struct {
	mu  sync.Mutex // guards got
	got []*webhook.Event
	raw []map[string]string
}

func TestHooksAndJobs(t *testing.T) {
	sim, c := setup(t)
	ctx := t.Context()
	sk := &sink{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(r.Header, b, []byte("k")); err != nil {
			t.Errorf("verify: %v", err)
		}
		ev, err := webhook.Parse(r.Header, b)
		if err != nil {
			t.Errorf("parse: %v", err)
			return
		}
		sk.mu.Lock()
		sk.got = append(sk.got, ev)
		sk.raw = append(sk.raw, map[string]string{"event": r.Header.Get("X-Gitea-Event"), "sig": r.Header.Get("X-Gitea-Signature")})
		sk.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	h, err := c.InstallHook(ctx, org, srv.URL, "k")
	if err != nil || h.ID == 0 {
		t.Fatalf("install hook: %+v %v", h, err)
	}
	if _, err := c.InstallHook(ctx, org, srv.URL+"/", "k"); !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("install twice: %v, want a conflict", err)
	}
	hs, err := c.ListHooks(ctx, org)
	if err != nil || len(hs) != 1 || hs[0].URL != srv.URL {
		t.Fatalf("list hooks: %+v %v", hs, err)
	}
	if found, err := c.FindHook(ctx, org, strings.ToUpper(srv.URL)); err != nil || found.ID != h.ID {
		t.Fatalf("find hook: %+v %v", found, err)
	}
	a, _ := sim.QueueJob("acme/app", "ubuntu")
	b, _ := sim.QueueJob("acme/app", "gpu")
	tok, _ := c.RegistrationToken(ctx, org)
	rn, _ := sim.RegisterRunner(tok, "g", []string{"ubuntu"}, true)
	if j, err := sim.Acquire("g", rn.Secret); err != nil || j.ID != a {
		t.Fatalf("acquire: %v %v", j, err)
	}
	if _, err := sim.StartJob(a, rn.Secret); err != nil {
		t.Fatal(err)
	}
	jobs, err := c.QueuedJobs(ctx, org)
	if err != nil || len(jobs) != 1 || jobs[0].ID != b {
		t.Fatalf("queued: %+v %v", jobs, err)
	}
	if want := fmt.Sprintf("/acme/app/actions/runs/%d", jobs[0].RunID); !strings.HasSuffix(jobs[0].WorkflowRunURL, want) ||
		strings.Contains(jobs[0].WorkflowRunURL, "/api/") {
		t.Fatalf("workflow run URL %q, want the run's web page", jobs[0].WorkflowRunURL)
	}
	if _, err := sim.CompleteJob(a, rn.Secret, "success"); err != nil {
		t.Fatal(err)
	}
	if err := sim.CancelJob(b); err != nil {
		t.Fatal(err)
	}
	if err := sim.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	sk.mu.Lock()
	defer sk.mu.Unlock()
	if len(sk.got) != 5 {
		t.Fatalf("got %d events", len(sk.got))
	}
	for i, ev := range sk.got {
		if ev.Forge != garrison.Gitea || ev.TargetType != "organization" || ev.EntityName != "acme" || sk.raw[i]["event"] != "workflow_job" || sk.raw[i]["sig"] == "" {
			t.Fatalf("event %d: %+v %v", i, ev, sk.raw[i])
		}
	}
	last := sk.got[4]
	if last.JobID != b || last.Conclusion != "cancelled" || last.RunnerName != "" {
		t.Fatalf("cancelled event: %+v", last)
	}
	if err := c.RemoveHook(ctx, org, srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveHook(ctx, org, srv.URL); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("remove twice: %v", err)
	}
	if err := c.DeleteHook(ctx, org, h.ID); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("delete a removed hook: %v", err)
	}
}

// TestNoJITConfigs checks that Gitea's answer to a JIT request is the domain's sentinel,
// wrapped, and calls nothing.
func TestNoJITConfigs(t *testing.T) {
	sim, c := setup(t)
	sim.ResetCalls()
	_, err := c.CreateJITConfig(t.Context(), org, garrison.JITRequest{Name: "x"})
	if !errors.Is(err, garrison.ErrJITUnsupported) || errors.Is(err, garrison.ErrNotFound) || !strings.Contains(err.Error(), "acme") {
		t.Fatalf("err %v, want garrison.ErrJITUnsupported naming the organization", err)
	}
	if len(sim.Calls()) != 0 {
		t.Fatalf("calls %v, want none", sim.Calls())
	}
}

// TestEndlessListingIsBounded: a server that always answers a full page of hooks (its
// listing never ends) gets an EUnprocessable error after a bounded number of pages, not
// an endless loop; a malformed answer is EUnprocessable too.
func TestEndlessListingIsBounded(t *testing.T) {
	var pages atomic.Int32
	full := "[" + strings.TrimSuffix(strings.Repeat(`{"id":1,"config":{"url":"https://x"}},`, 50), ",") + "]"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pages.Add(1)
		if strings.Contains(r.URL.Path, "/orgs/broken/") {
			_, _ = io.WriteString(w, `{"runners":[{"id":"one"}]}`)
			return
		}
		_, _ = io.WriteString(w, full)
	}))
	t.Cleanup(srv.Close)
	c, err := gitea.New(garrison.Endpoint{Name: "g", BaseURL: srv.URL}, garrison.Credentials{PAT: token}, gitea.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListHooks(t.Context(), org); !errors.Is(err, garrison.ErrUnprocessable) {
		t.Fatalf("endless listing: %v, want EUnprocessable", err)
	}
	if n := pages.Load(); n > 1000 {
		t.Fatalf("%d pages fetched, want at most 1000", n)
	}
	broken := garrison.Entity{Type: garrison.Organization, Name: "broken"}
	if _, err := c.ListRunners(t.Context(), broken); !errors.Is(err, garrison.ErrUnprocessable) {
		t.Fatalf("malformed answer: %v, want EUnprocessable", err)
	}
}

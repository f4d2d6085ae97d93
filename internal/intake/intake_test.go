package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
)

// step is one delivery and the answer it must get.
type step struct {
	d       func(e *env) delivery
	status  int
	errText string // "error" of the body; "" for an empty 2xx body
	details string // "details" of the body, checked when errText is set
	result  Result // the counted result, when set
}

func queued(id int64, labels ...string) job {
	return job{action: "queued", id: id, labels: labels}
}

func (j job) as(action, runner string) job {
	j.action, j.status, j.runner = action, action, runner
	return j
}

var stdLabels = []string{"self-hosted", "linux"}

func TestWebhooks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *env)
		steps []step
		check func(t *testing.T, e *env)
	}{
		{
			name:  "queued is recorded and enqueues the matching pool",
			steps: []step{{d: ghJob(queued(1, stdLabels...), "d1"), status: 200, result: ResultOK}},
			check: func(t *testing.T, e *env) {
				j := e.job(1)
				if j.Action != garrison.JobQueued || j.EntityID != e.repo.ID || j.EntityType != garrison.Repository ||
					!slices.Equal(j.Labels, stdLabels) || j.RepositoryOwner != "octo-org" || j.CreatedAt.IsZero() ||
					j.WorkflowRunURL != "https://github.com/octo-org/octo-repo/actions/runs/99" || j.Seq != 1 {
					t.Fatalf("job = %+v", j)
				}
				e.wantNotified(e.pool.ID)
			},
		},
		{
			name: "queued, in_progress, completed on our runner",
			steps: []step{
				{d: ghJob(queued(2, stdLabels...), "d1"), status: 200},
				{d: ghJob(queued(2, stdLabels...).as("in_progress", ourRunner), "d2"), status: 200},
				{d: ghJob(queued(2, stdLabels...).as("completed", ourRunner), "d3"), status: 200, result: ResultOK},
			},
			check: func(t *testing.T, e *env) {
				j := e.job(2)
				if j.Action != garrison.JobCompleted || j.RunnerName != ourRunner || j.RunnerID != 5 ||
					j.Conclusion != "success" || j.StartedAt.IsZero() || j.CompletedAt.IsZero() {
					t.Fatalf("job = %+v", j)
				}
				i := e.instance(ourRunner)
				if i.RunnerStatus != garrison.RunnerTerminated || i.Status != garrison.InstancePendingDelete || i.JobID != 2 {
					t.Fatalf("instance = %s/%s job %d", i.Status, i.RunnerStatus, i.JobID)
				}
				e.wantNotified(e.pool.ID, e.pool.ID, e.pool.ID)
			},
		},
		{
			name:  "in_progress forces our runner active",
			steps: []step{{d: ghJob(queued(3, stdLabels...).as("in_progress", ourRunner), "d1"), status: 200}},
			check: func(t *testing.T, e *env) {
				if i := e.instance(ourRunner); i.RunnerStatus != garrison.RunnerActive || i.Status != garrison.InstanceRunning {
					t.Fatalf("instance = %s/%s", i.Status, i.RunnerStatus)
				}
				if len(e.instance(ourRunner).StatusMessages) == 0 {
					t.Fatal("no status message")
				}
			},
		},
		{
			name: "in_progress before queued",
			steps: []step{
				{d: ghJob(queued(4, stdLabels...).as("in_progress", ourRunner), "d1"), status: 200},
				{d: ghJob(queued(4, stdLabels...), "d2"), status: 400, errText: "Bad Request",
					details: "job 4 cannot go back from in_progress to queued", result: ResultRejected},
			},
			check: func(t *testing.T, e *env) { e.wantAction(4, garrison.JobInProgress) },
		},
		{
			name: "status going backwards",
			steps: []step{
				{d: ghJob(queued(5, stdLabels...), "d1"), status: 200},
				{d: ghJob(queued(5, stdLabels...).as("completed", "someone-else"), "d2"), status: 200},
				{d: ghJob(queued(5, stdLabels...).as("in_progress", "someone-else"), "d3"), status: 400, errText: "Bad Request"},
			},
			check: func(t *testing.T, e *env) { e.wantAction(5, garrison.JobCompleted) },
		},
		{
			name: "completed on a known job run by a runner garrison does not own",
			steps: []step{
				{d: ghJob(queued(6, stdLabels...), "d1"), status: 200},
				{d: ghJob(queued(6, stdLabels...).as("completed", "github-hosted-1"), "d2"), status: 200},
			},
			check: func(t *testing.T, e *env) {
				if j := e.job(6); j.Action != garrison.JobCompleted || j.RunnerName != "github-hosted-1" {
					t.Fatalf("job = %+v", j)
				}
				if i := e.instance(ourRunner); i.RunnerStatus != garrison.RunnerIdle || i.Status != garrison.InstanceRunning {
					t.Fatalf("our instance changed: %s/%s", i.Status, i.RunnerStatus)
				}
			},
		},
		{
			name: "completed for a new job and a runner garrison does not own",
			steps: []step{{d: ghJob(queued(7, stdLabels...).as("completed", "github-hosted-1"), "d1"), status: 422,
				errText: "Unprocessable Content", details: "job 7 should not be recorded", result: ResultNotRecorded}},
			check: func(t *testing.T, e *env) { e.wantNoJob(7) },
		},
		{
			name: "labels matching no pool: recorded with the reason, answered 422",
			steps: []step{{d: ghJob(queued(8, "self-hosted", "gpu"), "d1"), status: 422,
				errText: "Unprocessable Content", details: "job 8 should not be recorded", result: ResultNotRecorded}},
			check: func(t *testing.T, e *env) {
				if j := e.job(8); j.Action != garrison.JobQueued || j.Reason != "no pool has all of the labels [self-hosted gpu]" ||
					j.EntityID != e.repo.ID {
					t.Fatalf("job = %+v", j)
				}
				e.wantNotified()
			},
		},
		{
			name:  "disabled pool does not match",
			setup: func(e *env) { e.disablePool(e.pool.ID) },
			steps: []step{{d: ghJob(queued(9, stdLabels...), "d1"), status: 422}},
			check: func(t *testing.T, e *env) {
				if j := e.job(9); j.Reason != "every pool matching labels [self-hosted linux] is disabled" {
					t.Fatalf("job reason %q", j.Reason)
				}
			},
		},
		{
			name: "a job no pool can serve leaves the ledger when another runner takes it",
			steps: []step{
				{d: ghJob(queued(20, "ubuntu-latest"), "d1"), status: 422},
				{d: ghJob(queued(20, "ubuntu-latest").as("in_progress", "GitHub Actions 3"), "d2"), status: 422,
					details: "job 20 should not be recorded", result: ResultNotRecorded},
				{d: ghJob(queued(20, "ubuntu-latest").as("completed", "GitHub Actions 3"), "d3"), status: 422,
					details: "job 20 should not be recorded", result: ResultNotRecorded},
			},
			check: func(t *testing.T, e *env) { e.wantNoJob(20); e.wantNotified() },
		},
		{
			name:  "labels and names compare case-insensitively",
			steps: []step{{d: ghJob(job{action: "queued", id: 10, labels: []string{"SELF-HOSTED", "linux"}, owner: "Octo-Org", repo: "OCTO-repo"}, "d1"), status: 200}},
			check: func(t *testing.T, e *env) { e.wantAction(10, garrison.JobQueued) },
		},
		{
			name:  "no labels",
			steps: []step{{d: ghJob(queued(11), "d1"), status: 200, result: ResultIgnored}},
			check: func(t *testing.T, e *env) { e.wantNoJob(11) },
		},
		{
			name:  "waiting is skipped",
			steps: []step{{d: ghJob(queued(12, stdLabels...).as("waiting", ""), "d1"), status: 200, result: ResultIgnored}},
			check: func(t *testing.T, e *env) { e.wantNoJob(12) },
		},
		{
			name: "the same delivery twice",
			steps: []step{
				{d: ghJob(queued(13, stdLabels...), "same"), status: 200, result: ResultOK},
				{d: ghJob(queued(13, stdLabels...), "same"), status: 200, result: ResultDuplicate},
			},
			check: func(t *testing.T, e *env) { e.wantNotified(e.pool.ID) },
		},
		{
			name: "bad signature",
			steps: []step{{d: func(e *env) delivery {
				d := ghJob(queued(14, stdLabels...), "d1")(e)
				d.header.Set(webhook.HeaderSignature256, webhook.Signature256(d.body, []byte("wrong")))
				return d
			}, status: 401, errText: "Not Authorized", details: "", result: ResultBadSignature}},
			check: func(t *testing.T, e *env) { e.wantNoJob(14) },
		},
		{
			name:  "missing signature",
			steps: []step{{d: withSig(""), status: 401, errText: "Not Authorized", details: ""}},
		},
		{
			name:  "signature without =",
			steps: []step{{d: withSig("sha256"), status: 400, errText: "Bad Request", details: "invalid signature format"}},
		},
		{
			name:  "unknown signature type",
			steps: []step{{d: withSig("md5=abcd"), status: 400, errText: "Bad Request", details: "unknown signature type"}},
		},
		{
			name: "legacy sha1 signature",
			steps: []step{{d: func(e *env) delivery {
				d := ghJob(queued(15, stdLabels...), "d1")(e)
				d.header.Del(webhook.HeaderSignature256)
				d.header.Set(webhook.HeaderSignature, webhook.Signature1(d.body, []byte(ghSecret)))
				return d
			}, status: 200}},
		},
		{
			name:  "entity without a webhook secret refuses everything",
			setup: func(e *env) { e.setSecret(e.repo.ID, "") },
			steps: []step{
				{d: withSig(""), status: 401, errText: "Not Authorized", details: ""},
				{d: func(e *env) delivery {
					d := ghJob(queued(16, stdLabels...), "d2")(e)
					d.header.Set(webhook.HeaderSignature256, webhook.Signature256(d.body, nil))
					return d
				}, status: 401, result: ResultBadSignature},
			},
			check: func(t *testing.T, e *env) { e.wantNoJob(16) },
		},
		{
			name: "oversized body",
			steps: []step{{d: func(e *env) delivery {
				body := []byte(`{"pad":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}`)
				return delivery{header: ghHeaders(webhook.TargetRepository, "d1", body, ghSecret), body: body}
			}, status: 413, errText: "Request Entity Too Large", result: ResultTooLarge}},
		},
		{
			name:  "not JSON",
			steps: []step{{d: raw("{not json"), status: 400, errText: "Bad Request", details: "invalid JSON payload", result: ResultMalformed}},
		},
		{
			name:  "empty body",
			steps: []step{{d: raw(""), status: 400, errText: "Bad Request", details: "missing job data"}},
		},
		{
			name:  "job id 0",
			steps: []step{{d: ghJob(queued(0, stdLabels...), "d1"), status: 400, errText: "Bad Request"}},
		},
		{
			name: "negative job ids are malformed, on GitHub and Gitea",
			steps: []step{
				{d: ghJob(queued(-1, stdLabels...), "d1"), status: 400, errText: "Bad Request", details: "invalid field", result: ResultMalformed},
				{d: ghJob(queued(-9223372036854775808, stdLabels...).as("in_progress", ourRunner), "d2"), status: 400, result: ResultMalformed},
				{d: giteaJob(job{action: "queued", id: -26, labels: []string{"ubuntu-latest"}}, "g1"), status: 400, details: "invalid field", result: ResultMalformed},
			},
			check: func(t *testing.T, e *env) {
				e.wantNoJob(-1)
				e.wantNoJob(-26)
				e.wantNotified()
				if i := e.instance(ourRunner); i.RunnerStatus != garrison.RunnerIdle {
					t.Fatalf("runner status %s", i.RunnerStatus)
				}
			},
		},
		{
			name: "unknown target type",
			steps: []step{{d: func(e *env) delivery {
				d := ghJob(queued(17, stdLabels...), "d1")(e)
				d.header.Del(webhook.HeaderGitHubTargetType)
				return d
			}, status: 400, errText: "Bad Request", details: "cannot handle hook target type "}},
		},
		{
			name:  "unknown owner",
			steps: []step{{d: ghJob(job{action: "queued", id: 18, labels: stdLabels, owner: "stranger", repo: "r"}, "d1"), status: 200, result: ResultEntityUnknown}},
			check: func(t *testing.T, e *env) { e.wantNoJob(18) },
		},
		{
			name:  "unknown endpoint",
			steps: []step{{d: ghJob(job{action: "queued", id: 19, labels: stdLabels, htmlBase: "https://ghes.example.com"}, "d1"), status: 200, result: ResultOwnerUnknown}},
			check: func(t *testing.T, e *env) { e.wantNoJob(19) },
		},
		{
			name:  "unknown event",
			steps: []step{{d: event("push"), status: 200, result: ResultIgnoredEvent}},
		},
		{
			name:  "ping",
			steps: []step{{d: event("ping"), status: 200, result: ResultPing}},
		},
		{
			name: "wrong controller id in the path",
			steps: []step{{d: func(e *env) delivery {
				d := ghJob(queued(20, stdLabels...), "d1")(e)
				d.path = "/webhooks/00000000-0000-0000-0000-000000000000/"
				return d
			}, status: 200, result: ResultWrongController}},
			check: func(t *testing.T, e *env) { e.wantNoJob(20) },
		},
		{
			name: "paths without a controller id and with a trailing slash",
			steps: []step{
				{d: atPath("/webhooks", ghJob(queued(21, stdLabels...), "d1")), status: 200},
				{d: atPath("/webhooks/", ghJob(queued(22, stdLabels...), "d2")), status: 200},
				{d: func(e *env) delivery {
					return atPath("/webhooks/"+e.ctrlID+"/", ghJob(queued(23, stdLabels...), "d3"))(e)
				}, status: 200},
			},
			check: func(t *testing.T, e *env) {
				for _, id := range []int64{21, 22, 23} {
					e.wantAction(id, garrison.JobQueued)
				}
			},
		},
		{
			name: "form-encoded body",
			steps: []step{{d: func(e *env) delivery {
				body := []byte("payload=" + url.QueryEscape(string(queued(24, stdLabels...).github())))
				h := ghHeaders(webhook.TargetRepository, "d1", body, ghSecret)
				h.Set("Content-Type", "application/x-www-form-urlencoded")
				return delivery{header: h, body: body}
			}, status: 200}},
			check: func(t *testing.T, e *env) { e.wantAction(24, garrison.JobQueued) },
		},
		{
			name:  "completed while the instance is still creating",
			setup: func(e *env) { e.setInstance(ourRunner, garrison.InstanceCreating, garrison.RunnerInstalling) },
			steps: []step{{d: ghJob(queued(25, stdLabels...).as("completed", ourRunner), "d1"), status: 200}},
			check: func(t *testing.T, e *env) {
				if i := e.instance(ourRunner); i.Status != garrison.InstanceCreating || i.RunnerStatus != garrison.RunnerTerminated {
					t.Fatalf("instance = %s/%s, want creating/terminated", i.Status, i.RunnerStatus)
				}
			},
		},
		{
			name: "Gitea organization hook: queued, then in_progress on another runner",
			steps: []step{
				{d: giteaJob(job{action: "queued", id: 26, labels: []string{"ubuntu-latest"}}, "g1"), status: 200},
				{d: giteaJob(job{action: "in_progress", id: 26, labels: []string{"ubuntu-latest"}, runner: "act-1"}, "g2"), status: 200},
			},
			check: func(t *testing.T, e *env) {
				j := e.job(26)
				if j.Action != garrison.JobInProgress || j.EntityID != e.org.ID || j.RunnerName != "act-1" ||
					j.RepositoryOwner != "org1" || j.StartedAt.IsZero() ||
					j.WorkflowRunURL != giteaBase+"/org1/repo1/actions/runs/3" {
					t.Fatalf("job = %+v", j)
				}
				e.wantNotified(e.gpool.ID, e.gpool.ID)
			},
		},
		{
			name: "Gitea headers with a GitHub-only secret fail",
			steps: []step{{d: func(e *env) delivery {
				d := giteaJob(job{action: "queued", id: 27, labels: []string{"ubuntu-latest"}}, "g1")(e)
				d.header.Set(webhook.HeaderSignature256, webhook.Signature256(d.body, []byte(ghSecret)))
				return d
			}, status: 401}},
		},
		{
			name: "Gitea system hook names no managed entity",
			steps: []step{{d: func(e *env) delivery {
				b := job{action: "queued", id: 28, labels: []string{"ubuntu-latest"}}.gitea()
				return delivery{header: giteaHeaders(webhook.TargetSystem, "g1", b), body: b}
			}, status: 200, result: ResultEntityUnknown}},
		},
	}
	for _, mode := range cacheModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t, withCacheTTL(mode.ttl))
				if tt.setup != nil {
					tt.setup(e)
				}
				for i, s := range tt.steps {
					e.sendStep(t, i, s)
				}
				if tt.check != nil {
					tt.check(t, e)
				}
			})
		}
	}
}

// cacheModes are the receiver's two ways of reading: through its cache, and without one.
var cacheModes = []struct {
	name string
	ttl  time.Duration
}{{"cached", DefaultCacheTTL}, {"uncached", 0}}

// sendStep sends step i and checks its answer and the result counted.
func (e *env) sendStep(t *testing.T, i int, s step) {
	t.Helper()
	before := float64(0)
	if s.result != "" {
		before = e.count(s.result)
	}
	w := e.send(s.d(e))
	checkReply(t, i, w.Code, w.Header(), w.Body.Bytes(), s)
	if s.result != "" && e.count(s.result) != before+1 {
		t.Fatalf("step %d: result %s not counted", i, s.result)
	}
}

func checkReply(t *testing.T, i, code int, h http.Header, body []byte, s step) {
	t.Helper()
	if code != s.status {
		t.Fatalf("step %d: status %d, want %d (body %s)", i, code, s.status, body)
	}
	if code < 300 {
		if len(body) != 0 {
			t.Fatalf("step %d: body %q, want empty", i, body)
		}
		return
	}
	if ct := h.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("step %d: content type %q", i, ct)
	}
	var eb map[string]*string
	if err := json.Unmarshal(body, &eb); err != nil || eb["error"] == nil || eb["details"] == nil {
		t.Fatalf("step %d: body %s is not an error body", i, body)
	}
	if s.errText != "" && *eb["error"] != s.errText {
		t.Fatalf("step %d: error %q, want %q", i, *eb["error"], s.errText)
	}
	if s.errText != "" && s.details != "" && *eb["details"] != s.details {
		t.Fatalf("step %d: details %q, want %q", i, *eb["details"], s.details)
	}
	if code == http.StatusUnauthorized && *eb["details"] != "" {
		t.Fatalf("step %d: 401 details %q, want empty", i, *eb["details"])
	}
}

func ghJob(j job, id string) func(*env) delivery {
	return func(*env) delivery { return gh(j, id) }
}

func giteaJob(j job, id string) func(*env) delivery {
	return func(*env) delivery {
		b := j.gitea()
		return delivery{header: giteaHeaders(webhook.TargetOrganization, id, b), body: b}
	}
}

func withSig(sig string) func(*env) delivery {
	return func(*env) delivery {
		d := gh(queued(100, stdLabels...), "sig")
		d.header.Del(webhook.HeaderSignature256)
		if sig != "" {
			d.header.Set(webhook.HeaderSignature256, sig)
		}
		return d
	}
}

func raw(body string) func(*env) delivery {
	return func(*env) delivery {
		return delivery{header: ghHeaders(webhook.TargetRepository, "raw", []byte(body), ghSecret), body: []byte(body)}
	}
}

func event(name string) func(*env) delivery {
	return func(*env) delivery {
		b := []byte(`{"zen":"Keep it logically awesome.","hook_id":42}`)
		h := ghHeaders(webhook.TargetRepository, "ev", b, ghSecret)
		h.Set(webhook.HeaderGitHubEvent, name)
		return delivery{header: h, body: b}
	}
}

func atPath(path string, d func(*env) delivery) func(*env) delivery {
	return func(e *env) delivery {
		out := d(e)
		out.path = path
		return out
	}
}

func (e *env) job(id int64) garrison.Job {
	e.t.Helper()
	j, err := e.st.Job(e.t.Context(), id)
	must(e.t, err)
	return j
}

func (e *env) wantAction(id int64, a garrison.JobAction) {
	e.t.Helper()
	if j := e.job(id); j.Action != a {
		e.t.Fatalf("job %d action %s, want %s", id, j.Action, a)
	}
}

func (e *env) wantNoJob(id int64) {
	e.t.Helper()
	if _, err := e.st.Job(e.t.Context(), id); !errors.Is(err, garrison.ErrNotFound) {
		e.t.Fatalf("job %d: err %v, want not found", id, err)
	}
}

func (e *env) wantNotified(ids ...string) {
	e.t.Helper()
	slices.Sort(ids)
	if got := e.takeNotified(); !slices.Equal(got, ids) {
		e.t.Fatalf("notified %v, want %v", got, ids)
	}
}

func (e *env) instance(name string) garrison.Instance {
	e.t.Helper()
	i, err := e.st.Instance(e.t.Context(), name)
	must(e.t, err)
	return i
}

func (e *env) setInstance(name string, s garrison.InstanceStatus, rs garrison.RunnerStatus) {
	_, err := e.st.UpdateInstance(e.t.Context(), name, func(i *garrison.Instance) error {
		i.Status, i.RunnerStatus = s, rs
		return nil
	})
	must(e.t, err)
}

func (e *env) disablePool(id string) {
	_, err := e.st.UpdatePool(e.t.Context(), id, func(p *garrison.Pool) error {
		p.Enabled = false
		return nil
	})
	must(e.t, err)
}

func (e *env) setSecret(id, secret string) {
	_, err := e.st.UpdateEntity(e.t.Context(), id, func(en *garrison.Entity) error {
		en.WebhookSecret = secret
		return nil
	})
	must(e.t, err)
}

// TestAnswerBeforeNotify: the forge gets its answer before the reconciler is woken, so a
// delivery never waits on the wake-up. Notify here blocks until the client has read the
// answer: were it called first, the request would never end.
func TestAnswerBeforeNotify(t *testing.T) {
	answered := make(chan struct{})
	notified := make(chan []string, 4)
	e := newEnv(t, func(o *Options) {
		o.Notify = func(ids ...string) {
			select {
			case <-answered:
			case <-time.After(10 * time.Second):
			}
			notified <- ids
		}
	})
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	var once sync.Once
	release := func() { once.Do(func() { close(answered) }) }
	defer release() // before Close, which waits for the handler
	d := signed(queued(7, stdLabels...), "d7", ghSecret)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/webhooks/"+e.ctrlID, bytes.NewReader(d.body))
	must(t, err)
	req.Header = d.header
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("delivery not answered before the reconciler was notified: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	release()
	select {
	case ids := <-notified:
		if !slices.Equal(ids, []string{e.pool.ID}) {
			t.Fatalf("notified %v, want [%s]", ids, e.pool.ID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pool was never notified")
	}
}

package intake

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

const (
	ghSecret    = "It's a Secret to Everybody"
	giteaSecret = "gitea-secret"
	giteaBase   = "http://127.0.0.1:3000"
	ourRunner   = "garm-abc123"
)

// env is a receiver on a real SQLite store with a GitHub repository (octo-org/octo-repo on
// github.com, pool tags self-hosted+linux, instance garm-abc123) and a Gitea organization
// (org1, pool tag ubuntu-latest). The receiver caches for DefaultCacheTTL on the env's
// clock, which only moves when a test advances it.
type env struct {
	t     testing.TB
	st    *sqlite.Store
	h     *Handler
	reg   *prometheus.Registry
	clock *fakeClock
	reads *readCounts
	repo  garrison.Entity
	org   garrison.Entity
	pool  garrison.Pool
	gpool garrison.Pool

	mu       sync.Mutex // guards notified and ctrlID
	notified []string
	ctrlID   string
}

func newEnv(t testing.TB, opts ...func(*Options)) *env {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer("test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e := &env{t: t, st: st, reg: prometheus.NewRegistry(), clock: newFakeClock(), reads: &readCounts{}}
	ctrl, err := st.Controller(ctx)
	must(t, err)
	e.ctrlID = ctrl.ID
	e.repo = e.entity(garrison.GitHubComEndpoint, garrison.GitHub, garrison.Entity{
		Type: garrison.Repository, Owner: "octo-org", Name: "octo-repo", WebhookSecret: ghSecret})
	e.pool = e.newPool(e.repo.ID, "self-hosted", "Linux")
	_, err = st.CreateInstance(ctx, garrison.Instance{Name: ourRunner, PoolID: e.pool.ID, ProviderName: "sim",
		OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle})
	must(t, err)
	_, err = st.CreateEndpoint(ctx, garrison.Endpoint{Name: "gitea-local", Type: garrison.Gitea, BaseURL: giteaBase + "/", APIBaseURL: giteaBase + "/api/v1"})
	must(t, err)
	e.org = e.entity("gitea-local", garrison.Gitea, garrison.Entity{Type: garrison.Organization, Name: "org1", WebhookSecret: giteaSecret})
	e.gpool = e.newPool(e.org.ID, "ubuntu-latest")
	o := Options{
		Store: countingStore{st, e.reads}, Registerer: e.reg, Notify: e.notify,
		ControllerID: e.controllerID, Now: e.clock.Now, CacheTTL: DefaultCacheTTL,
	}
	for _, opt := range opts {
		opt(&o)
	}
	e.h, err = New(o)
	must(t, err)
	return e
}

// withCacheTTL sets Options.CacheTTL.
func withCacheTTL(ttl time.Duration) func(*Options) {
	return func(o *Options) { o.CacheTTL = ttl }
}

func (e *env) controllerID(context.Context) (string, error) {
	e.reads.controller.Add(1)
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ctrlID, nil
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// readCounts counts the routing reads the receiver makes.
type readCounts struct {
	controller, endpoints, entities, pools atomic.Int64
}

// total is the number of routing reads so far.
func (r *readCounts) total() int64 {
	return r.controller.Load() + r.endpoints.Load() + r.entities.Load() + r.pools.Load()
}

// countingStore is the SQLite store, counting the routing reads.
type countingStore struct {
	*sqlite.Store
	n *readCounts
}

func (s countingStore) ListEndpoints(ctx context.Context, t garrison.ForgeType) ([]garrison.Endpoint, error) {
	s.n.endpoints.Add(1)
	return s.Store.ListEndpoints(ctx, t)
}

func (s countingStore) ListEntities(ctx context.Context, f store.EntityFilter) ([]garrison.Entity, error) {
	s.n.entities.Add(1)
	return s.Store.ListEntities(ctx, f)
}

func (s countingStore) ListPools(ctx context.Context, f store.PoolFilter) ([]garrison.Pool, error) {
	s.n.pools.Add(1)
	return s.Store.ListPools(ctx, f)
}

func (e *env) entity(endpoint string, ft garrison.ForgeType, ent garrison.Entity) garrison.Entity {
	e.t.Helper()
	ctx := e.t.Context()
	c, err := e.st.CreateCredentials(ctx, garrison.Credentials{Name: "creds-" + ent.Name, ForgeType: ft,
		AuthType: garrison.AuthPAT, Endpoint: endpoint, PAT: "pat"})
	must(e.t, err)
	ent.CredentialsID, ent.Balancer = c.ID, garrison.RoundRobin
	out, err := e.st.CreateEntity(ctx, ent)
	must(e.t, err)
	return out
}

func (e *env) newPool(entityID string, tags ...string) garrison.Pool {
	e.t.Helper()
	p, err := e.st.CreatePool(e.t.Context(), garrison.Pool{EntityID: entityID, ProviderName: "sim", MaxRunners: 5,
		Image: "img", Flavor: "small", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		Tags: garrison.TagsFromNames(tags), Enabled: true})
	must(e.t, err)
	return p
}

func (e *env) notify(ids ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notified = append(e.notified, ids...)
}

func (e *env) takeNotified() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.notified
	e.notified = nil
	slices.Sort(out)
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// delivery is one webhook request.
type delivery struct {
	path   string
	header http.Header
	body   []byte
}

// send serves a delivery and returns the recorded response.
func (e *env) send(d delivery) *httptest.ResponseRecorder {
	path := d.path
	if path == "" {
		path = "/webhooks/" + e.ctrlID
	}
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(d.body))
	for k, v := range d.header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// count reads garrison_webhook_deliveries_total{result=r} from the registry.
func (e *env) count(r Result) float64 {
	e.t.Helper()
	mfs, err := e.reg.Gather()
	must(e.t, err)
	for _, mf := range mfs {
		if mf.GetName() != "garrison_webhook_deliveries_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == string(r) {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	e.t.Fatalf("no counter for result %s", r)
	return 0
}

// job describes a workflow_job payload.
type job struct {
	action, status string
	id             int64
	labels         []string
	runner         string
	htmlBase       string // default https://github.com
	owner, repo    string // default octo-org/octo-repo (org1/repo1 for Gitea)
	enterprise     string // GitHub: the enterprise slug sent, none when ""
}

func (j job) defaults() job {
	if j.status == "" {
		j.status = j.action
	}
	if j.htmlBase == "" {
		j.htmlBase = "https://github.com"
	}
	if j.owner == "" {
		j.owner, j.repo = "octo-org", "octo-repo"
	}
	return j
}

// github returns a GitHub payload.
func (j job) github() []byte {
	j = j.defaults()
	wj := map[string]any{
		"id": j.id, "run_id": 99, "run_attempt": 1, "status": j.status, "conclusion": nil, "name": "build",
		"html_url":   j.htmlBase + "/" + j.owner + "/" + j.repo + "/actions/runs/99/job/1",
		"run_url":    "https://api.github.com/repos/" + j.owner + "/" + j.repo + "/actions/runs/99",
		"created_at": "2025-08-05T10:34:50Z", "started_at": "2025-08-05T10:34:58Z", "completed_at": nil,
		"labels": j.labels, "runner_id": nil, "runner_name": nil,
	}
	if j.runner != "" {
		wj["runner_id"], wj["runner_name"], wj["runner_group_id"], wj["runner_group_name"] = 5, j.runner, 1, "Default"
	}
	if j.action == "completed" {
		wj["conclusion"], wj["completed_at"] = "success", "2025-08-05T10:40:00Z"
	}
	body := map[string]any{
		"action": j.action, "workflow_job": wj,
		"repository":   map[string]any{"name": j.repo, "full_name": j.owner + "/" + j.repo, "owner": map[string]any{"login": j.owner}},
		"organization": map[string]any{"login": j.owner}, "sender": map[string]any{"login": "octocat"},
	}
	if j.enterprise != "" {
		body["enterprise"] = map[string]any{"slug": j.enterprise, "name": j.enterprise}
	}
	return mustJSON(body)
}

// gitea returns a Gitea payload for org1/repo1 (or j.repo): no runner fields until assigned, epoch
// placeholders, an organization without login.
func (j job) gitea() []byte {
	repo := cmpOr(j.repo, "repo1")
	wj := map[string]any{
		"id": j.id, "run_id": 3, "status": cmpOr(j.status, j.action), "name": "build", "steps": []any{},
		"html_url":   giteaBase + "/org1/" + repo + "/actions/runs/3/jobs/" + itoa(j.id),
		"run_url":    giteaBase + "/api/v1/repos/org1/" + repo + "/actions/runs/3",
		"created_at": "2025-01-02T03:04:05Z", "started_at": "1970-01-01T00:00:00Z", "completed_at": "1970-01-01T00:00:00Z",
		"labels": j.labels,
	}
	if j.runner != "" {
		wj["runner_id"], wj["runner_name"] = 8, j.runner
	}
	return mustJSON(map[string]any{
		"action": j.action, "workflow_job": wj,
		"repository":   map[string]any{"name": repo, "owner": map[string]any{"login": "org1", "username": "org1"}},
		"organization": map[string]any{"id": 3, "name": "org1", "username": "org1", "full_name": ""},
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ghHeaders returns signed GitHub headers for body.
func ghHeaders(target, deliveryID string, body []byte, secret string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(webhook.HeaderGitHubEvent, webhook.EventWorkflowJob)
	h.Set(webhook.HeaderGitHubDelivery, deliveryID)
	h.Set(webhook.HeaderGitHubHookID, "42")
	h.Set(webhook.HeaderGitHubTargetType, target)
	if secret != "" {
		h.Set(webhook.HeaderSignature256, webhook.Signature256(body, []byte(secret)))
	}
	return h
}

// giteaHeaders returns signed Gitea headers for body (Gitea sends the GitHub ones too).
func giteaHeaders(target, deliveryID string, body []byte) http.Header {
	h := ghHeaders(target, deliveryID, body, giteaSecret)
	h.Del(webhook.HeaderSignature256)
	h.Set(webhook.HeaderSignature, webhook.Signature1(body, []byte(giteaSecret)))
	h.Set(webhook.HeaderSignature256, webhook.Signature256(body, []byte(giteaSecret)))
	h.Set("X-Gitea-Event", webhook.EventWorkflowJob)
	h.Set("X-Gitea-Delivery", deliveryID)
	h.Set("X-Gitea-Hook-Installation-Target-Type", target)
	h.Set("X-Gitea-Signature", "ignored")
	return h
}

// gh builds a signed GitHub repository delivery of j.
func gh(j job, deliveryID string) delivery {
	b := j.github()
	return delivery{header: ghHeaders(webhook.TargetRepository, deliveryID, b, ghSecret), body: b}
}

package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httpapi"
)

// fixture is an initialized controller with an endpoint, credentials, a repo and a pool.
type fixture struct {
	h              *harness
	tok            string
	repoID, poolID string
	credsID        uint
}

func newFixture(t testing.TB, edit ...func(*httpapi.Options)) *fixture {
	h := newHarness(t, openSQLite, edit...)
	return newFixtureOn(t, h, h.ready())
}

// newFixtureOn adds the fixture's objects to a ready harness.
func newFixtureOn(_ testing.TB, h *harness, tok string) *fixture {
	f := &fixture{h: h, tok: tok}
	var c apiv1.ForgeCredentials
	h.expect(h.call("POST", api("/github/credentials"), f.tok, map[string]any{"name": "pat", "endpoint": "github.com",
		"auth_type": "pat", "pat": map[string]any{"oauth2_token": "x"}}), 200, &c)
	f.credsID = c.ID
	var repo apiv1.Repository
	h.expect(h.call("POST", api("/repositories"), f.tok, map[string]any{"owner": "o", "name": "r",
		"credentials_name": "pat", "webhook_secret": "s"}), 200, &repo)
	f.repoID = repo.ID
	var p apiv1.Pool
	h.expect(h.call("POST", api("/repositories/"+repo.ID+"/pools"), f.tok, validPool()), 200, &p)
	f.poolID = p.ID
	return f
}

func validPool() map[string]any {
	return map[string]any{"provider_name": "lxd", "max_runners": 2, "image": "i", "flavor": "f",
		"os_type": "linux", "os_arch": "amd64", "tags": []string{"a"}, "enable_shell": false}
}

// with returns a copy of m with k set to v (or removed when v is nil).
func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

func poolMsg(msg string) string {
	return `error appending tags to create pool params: failed to validate params ("` + msg + `"): invalid request`
}

func TestBadInput(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	pools := api("/repositories/" + f.repoID + "/pools")
	tests := []struct {
		name         string
		method, path string
		body         any
		status       int
		errText      string
		details      string // exact, or prefix when it ends in "*"
	}{
		{"malformed JSON", "POST", api("/repositories"), []byte(`{"owner":`), 400, "Bad Request", "invalid request: unexpected EOF at offset 9"},
		{"syntax error", "POST", api("/repositories"), []byte(`{"owner" "x"}`), 400, "Bad Request", "invalid request: invalid character*"},
		{"empty body", "POST", api("/repositories"), []byte(``), 400, "Bad Request", "invalid request: empty body"},
		{"trailing garbage", "POST", api("/repositories"), []byte(`{} {}`), 400, "Bad Request", "invalid request: unexpected data*"},
		{"wrong type", "POST", pools, []byte(`{"max_runners":"5"}`), 400, "Bad Request", "invalid request: json: cannot unmarshal string into field max_runners of type uint"},
		{"negative uint", "POST", pools, []byte(`{"max_runners":-1}`), 400, "Bad Request", "invalid request: json: cannot unmarshal number -1 into field max_runners of type uint"},
		{"oversized body", "POST", api("/repositories"), bytes.Repeat([]byte(" "), 1<<20+10), 413, "Request Entity Too Large", "request body too large"},
		{"unknown keys ignored", "POST", api("/repositories"), map[string]any{"owner": "o", "name": "r2", "credentials_name": "pat", "webhook_secret": "s", "bogus": 1}, 200, "", ""},
		{"duplicate repo", "POST", api("/repositories"), map[string]any{"owner": "O", "name": "R", "credentials_name": "pat", "webhook_secret": "s"}, 409, "Conflict", "*"},
		{"missing owner", "POST", api("/repositories"), map[string]any{"name": "r", "credentials_name": "pat", "webhook_secret": "s"}, 400, "Bad Request", "missing owner"},
		{"missing repo name", "POST", api("/repositories"), map[string]any{"owner": "o", "credentials_name": "pat", "webhook_secret": "s"}, 400, "Bad Request", "missing repo name"},
		{"missing org name", "POST", api("/organizations"), map[string]any{"credentials_name": "pat", "webhook_secret": "s"}, 400, "Bad Request", "missing org name"},
		{"missing enterprise name", "POST", api("/enterprises"), map[string]any{"credentials_name": "pat", "webhook_secret": "s"}, 400, "Bad Request", "missing enterprise name"},
		{"missing credentials", "POST", api("/repositories"), map[string]any{"owner": "o", "name": "r", "webhook_secret": "s"}, 400, "Bad Request", "missing credentials name"},
		{"missing secret", "POST", api("/repositories"), map[string]any{"owner": "o", "name": "r", "credentials_name": "pat"}, 400, "Bad Request", "missing secret"},
		{"unknown credentials", "POST", api("/repositories"), map[string]any{"owner": "o", "name": "r", "credentials_name": "nope", "webhook_secret": "s"}, 400, "Bad Request", "credentials nope not defined"},
		{"bad balancer", "POST", api("/organizations"), map[string]any{"name": "o", "credentials_name": "pat", "webhook_secret": "s", "pool_balancer_type": "random"}, 400, "Bad Request", "*"},
		{"bad forge type", "POST", api("/organizations"), map[string]any{"name": "o", "credentials_name": "pat", "webhook_secret": "s", "forge_type": "gitlab"}, 400, "Bad Request", "invalid forge_type \"gitlab\""},
		{"gitea creds for github forge", "POST", api("/organizations"), map[string]any{"name": "o", "credentials_name": "pat", "webhook_secret": "s", "forge_type": "gitea"}, 400, "Bad Request", "credentials pat not defined"},
		{"bad repo uuid", "GET", api("/repositories/not-a-uuid"), nil, 400, "Bad Request", "error parsing id: invalid request"},
		{"bad pool uuid", "GET", api("/pools/123"), nil, 400, "Bad Request", "error parsing id: invalid request"},
		{"unknown repo", "GET", api("/repositories/00000000-0000-4000-8000-000000000000"), nil, 404, "Not Found", "*"},
		{"unknown pool", "GET", api("/pools/00000000-0000-4000-8000-000000000000"), nil, 404, "Not Found", "*"},
		{"delete unknown pool", "DELETE", api("/pools/00000000-0000-4000-8000-000000000000"), nil, 404, "Not Found", "*"},
		{"delete unknown entity pool", "DELETE", pools + "/00000000-0000-4000-8000-000000000000", nil, 404, "Not Found", "*"},
		{"org route for a repo", "GET", api("/organizations/" + f.repoID), nil, 404, "Not Found", "*"},
		{"pool of another entity", "GET", api("/organizations/00000000-0000-4000-8000-000000000000/pools/" + f.poolID), nil, 404, "Not Found", "*"},
		{"bad credentials id", "GET", api("/github/credentials/abc"), nil, 400, "Bad Request", "error parsing id: invalid request"},
		{"unknown credentials id", "GET", api("/github/credentials/999"), nil, 404, "Not Found", "*"},
		{"github creds on gitea route", "GET", api("/gitea/credentials/" + itoa(f.credsID)), nil, 404, "Not Found", "*"},
		{"delete entity with pools", "DELETE", api("/repositories/" + f.repoID), nil, 400, "Bad Request", "repository has pools defined; delete them first"},
		{"delete creds in use", "DELETE", api("/github/credentials/" + itoa(f.credsID)), nil, 400, "Bad Request", "*"},
		{"delete endpoint in use", "DELETE", api("/github/endpoints/github.com"), nil, 400, "Bad Request", "*"},
		{"delete missing endpoint", "DELETE", api("/github/endpoints/nope"), nil, 204, "", ""},
		{"delete missing credentials", "DELETE", api("/github/credentials/4242"), nil, 204, "", ""},
		{"unknown instance", "GET", api("/instances/nope"), nil, 404, "Not Found", "*"},
		{"bad bool query", "DELETE", api("/instances/x?forceRemove=maybe"), nil, 400, "Bad Request", "*"},

		// Pool create checks, in order, with the observed message format.
		{"pool: missing provider", "POST", pools, with(validPool(), "provider_name", nil), 400, "Bad Request", poolMsg("missing provider")},
		{"pool: unknown provider", "POST", pools, with(validPool(), "provider_name", "aws"), 400, "Bad Request", "no such provider aws"},
		{"pool: max 0", "POST", pools, with(validPool(), "max_runners", 0, "min_idle_runners", 1), 400, "Bad Request", poolMsg("max_runners must be greater than 0")},
		{"pool: min > max", "POST", pools, with(validPool(), "min_idle_runners", 3), 400, "Bad Request", poolMsg("min_idle_runners cannot be larger than max_runners")},
		{"pool: no tags", "POST", pools, with(validPool(), "tags", []string{}), 400, "Bad Request", poolMsg("missing tags")},
		{"pool: no flavor", "POST", pools, with(validPool(), "flavor", ""), 400, "Bad Request", poolMsg("missing flavor")},
		{"pool: no image", "POST", pools, with(validPool(), "image", ""), 400, "Bad Request", poolMsg("missing image")},
		{"pool: empty os_type", "POST", pools, with(validPool(), "os_type", nil), 400, "Bad Request", poolMsg("invalid OS type ")},
		{"pool: bad os_type", "POST", pools, with(validPool(), "os_type", "plan9"), 400, "Bad Request", poolMsg("invalid OS type plan9")},
		{"pool: bad os_arch", "POST", pools, with(validPool(), "os_arch", "mips"), 400, "Bad Request", poolMsg("invalid OS architecture mips")},
		{"pool: unknown template", "POST", pools, with(validPool(), "template_id", 7), 404, "Not Found", "template 7 not found"},
		{"pool: parent missing", "POST", api("/repositories/00000000-0000-4000-8000-000000000000/pools"), validPool(), 404, "Not Found", "*"},

		// Pool update: same rules on both routes.
		{"update: timeout 0 global", "PUT", api("/pools/" + f.poolID), map[string]any{"runner_bootstrap_timeout": 0}, 400, "Bad Request", "runner_bootstrap_timeout cannot be 0"},
		{"update: timeout 0 entity", "PUT", pools + "/" + f.poolID, map[string]any{"runner_bootstrap_timeout": 0}, 400, "Bad Request", "runner_bootstrap_timeout cannot be 0"},
		{"update: os global", "PUT", api("/pools/" + f.poolID), map[string]any{"os_type": "beos"}, 400, "Bad Request", "invalid OS type beos"},
		{"update: arch entity", "PUT", pools + "/" + f.poolID, map[string]any{"os_arch": "sparc"}, 400, "Bad Request", "invalid OS architecture sparc"},
		{"update: min > max", "PUT", api("/pools/" + f.poolID), map[string]any{"min_idle_runners": 9}, 400, "Bad Request", "min_idle_runners cannot be larger than max_runners"},

		// Controller.
		{"controller: bad url", "PUT", api("/controller"), map[string]any{"metadata_url": "not a url"}, 400, "Bad Request", "invalid metadata_url"},
		{"controller: no host", "PUT", api("/controller"), map[string]any{"callback_url": "https://"}, 400, "Bad Request", "invalid callback_url"},
		{"controller: bad version", "PUT", api("/controller"), map[string]any{"garm_agent_version": "1.2"}, 400, "Bad Request", "*"},
		{"controller: bad CA", "PUT", api("/controller"), map[string]any{"ca_cert_bundle": []byte("junk")}, 400, "Bad Request", "*"},
		{"controller: CA + clear", "PUT", api("/controller"), map[string]any{"ca_cert_bundle": testCA(t), "clear_ca_cert_bundle": true}, 400, "Bad Request", "ca_cert_bundle and clear_ca_cert_bundle are mutually exclusive"},

		// Endpoints.
		{"endpoint: empty name", "POST", api("/github/endpoints"), map[string]any{"base_url": "https://a", "api_base_url": "https://a", "upload_base_url": "https://a"}, 400, "Bad Request", "missing name"},
		{"endpoint: gitea empty name", "POST", api("/gitea/endpoints"), map[string]any{"base_url": "https://a", "api_base_url": "https://a"}, 400, "Bad Request", "missing name"},
		{"endpoint: slash in name", "POST", api("/github/endpoints"), map[string]any{"name": "a/b", "base_url": "https://a", "api_base_url": "https://a", "upload_base_url": "https://a"}, 400, "Bad Request", "*"},
		{"endpoint: missing url", "POST", api("/github/endpoints"), map[string]any{"name": "e", "base_url": "https://a", "api_base_url": "https://a"}, 400, "Bad Request", "missing upload_base_url"},
		{"endpoint: ftp url", "POST", api("/github/endpoints"), map[string]any{"name": "e", "base_url": "ftp://a", "api_base_url": "https://a", "upload_base_url": "https://a"}, 400, "Bad Request", "invalid base_url"},
		{"endpoint: bad CA", "POST", api("/github/endpoints"), map[string]any{"name": "e", "base_url": "https://a", "api_base_url": "https://a", "upload_base_url": "https://a", "ca_cert_bundle": []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")}, 400, "Bad Request", "*"},
		{"endpoint: duplicate across forges", "POST", api("/gitea/endpoints"), map[string]any{"name": "GitHub.com", "base_url": "https://a", "api_base_url": "https://a"}, 409, "Conflict", "*"},
		{"endpoint: update unknown", "PUT", api("/github/endpoints/nope"), map[string]any{"description": "x"}, 404, "Not Found", "*"},
		{"endpoint: get unknown", "GET", api("/gitea/endpoints/github.com"), nil, 404, "Not Found", "*"},

		// Credentials.
		{"creds: no name", "POST", api("/github/credentials"), map[string]any{"endpoint": "github.com", "auth_type": "pat", "pat": map[string]any{"oauth2_token": "x"}}, 400, "Bad Request", "missing name"},
		{"creds: duplicate", "POST", api("/github/credentials"), map[string]any{"name": "PAT", "endpoint": "github.com", "auth_type": "pat", "pat": map[string]any{"oauth2_token": "x"}}, 409, "Conflict", "*"},
		{"creds: unknown endpoint", "POST", api("/github/credentials"), map[string]any{"name": "c2", "endpoint": "nope", "auth_type": "pat", "pat": map[string]any{"oauth2_token": "x"}}, 404, "Not Found", "*"},
		{"creds: no token", "POST", api("/github/credentials"), map[string]any{"name": "c2", "endpoint": "github.com", "auth_type": "pat", "pat": map[string]any{}}, 400, "Bad Request", "*"},
		{"creds: bad auth type", "POST", api("/github/credentials"), map[string]any{"name": "c2", "endpoint": "github.com", "auth_type": "oauth"}, 400, "Bad Request", "invalid auth_type: oauth"},
		{"creds: gitea app", "POST", api("/gitea/credentials"), map[string]any{"name": "c2", "endpoint": "github.com", "auth_type": "app"}, 400, "Bad Request", "invalid auth_type: app"},
		{"creds: PKCS#8 app key", "POST", api("/github/credentials"), map[string]any{"name": "c2", "endpoint": "github.com", "auth_type": "app", "app": map[string]any{"app_id": 1, "installation_id": 2, "private_key_bytes": testRSAKey(t, true)}}, 400, "Bad Request", "invalid private key*"},
		{"creds: app missing id", "POST", api("/github/credentials"), map[string]any{"name": "c2", "endpoint": "github.com", "auth_type": "app", "app": map[string]any{"installation_id": 2, "private_key_bytes": testRSAKey(t, false)}}, 400, "Bad Request", "missing app_id"},
		{"creds: update pat+app", "PUT", api("/github/credentials/" + itoa(f.credsID)), map[string]any{"pat": map[string]any{"oauth2_token": "y"}, "app": map[string]any{"app_id": 1}}, 400, "Bad Request", "*"},
		{"creds: update app on pat", "PUT", api("/github/credentials/" + itoa(f.credsID)), map[string]any{"app": map[string]any{"app_id": 1, "installation_id": 2, "private_key_bytes": testRSAKey(t, false)}}, 400, "Bad Request", "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			defer func() { h.t = nil }()
			r := h.call(tt.method, tt.path, tok, tt.body)
			if r.status != tt.status {
				t.Fatalf("status = %d, want %d; body %s", r.status, tt.status, r.body)
			}
			if tt.errText == "" {
				return
			}
			if strings.HasSuffix(tt.details, "*") {
				var e apiv1.APIError
				h.expect(r, tt.status, &e)
				if e.Error != tt.errText || !strings.HasPrefix(e.Details, strings.TrimSuffix(tt.details, "*")) {
					t.Errorf("body = %s", r.body)
				}
				if r.header.Get("Content-Type") != "application/json" {
					t.Errorf("Content-Type = %q", r.header.Get("Content-Type"))
				}
				return
			}
			h.expectError(r, tt.status, tt.errText, tt.details)
		})
	}
}

func TestEntityDeleteAndStatusCodes(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	// Endpoint and credential deletes are 204; others are an empty 200 JSON.
	h.expect(h.call("POST", api("/gitea/endpoints"), tok, map[string]any{"name": "g", "base_url": "https://g", "api_base_url": "https://g/api/v1"}), 200, nil)
	r := h.call("DELETE", api("/gitea/endpoints/g/"), tok, nil)
	if r.status != http.StatusNoContent {
		t.Errorf("endpoint delete = %d", r.status)
	}
	h.expect(h.call("DELETE", api("/pools/"+f.poolID+"/"), tok, nil), 200, nil)
	r = h.call("DELETE", api("/repositories/"+f.repoID), tok, nil)
	if r.status != 200 || len(r.body) != 0 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("repo delete = %d %q %q", r.status, r.body, r.header.Get("Content-Type"))
	}
	r = h.call("DELETE", api("/github/credentials/"+itoa(f.credsID)), tok, nil)
	if r.status != http.StatusNoContent {
		t.Errorf("credentials delete = %d %s", r.status, r.body)
	}
	// Empty lists are [].
	for _, p := range []string{"/repositories", "/organizations", "/enterprises", "/pools", "/instances", "/jobs", "/gitea/endpoints", "/gitea/credentials"} {
		r := h.call("GET", api(p), tok, nil)
		if strings.TrimSpace(string(r.body)) != "[]" {
			t.Errorf("GET %s = %s", p, r.body)
		}
	}
}

func TestInstanceDeleteRules(t *testing.T) {
	f := newFixture(t)
	h, tok, ctx := f.h, f.tok, t.Context()
	mk := func(name string, st garrison.InstanceStatus, agentID int64) {
		if _, err := h.store.CreateInstance(ctx, garrison.Instance{Name: name, PoolID: f.poolID, ProviderName: "lxd",
			OSType: "linux", OSArch: "amd64", Status: st, RunnerStatus: garrison.RunnerIdle, AgentID: agentID}); err != nil {
			t.Fatal(err)
		}
	}
	mk("creating", garrison.InstanceCreating, 0)
	mk("unauth", garrison.InstanceRunning, 7)
	mk("errored", garrison.InstanceError, 0)
	const q = "?bypassGHUnauthorized=false&forceRemove=false"
	h.expectError(h.call("DELETE", api("/instances/creating"+q), tok, nil), 400, "Bad Request",
		"runner must be in running, error, pending_delete or pending_force_delete state (is creating)")
	h.expect(h.call("DELETE", api("/instances/errored"+q), tok, nil), 200, nil)
	mk("history", garrison.InstanceDeleted, 0) // a retired runner kept as history
	h.expect(h.call("DELETE", api("/instances/history"+q), tok, nil), 200, nil)
	if _, err := h.store.Instance(ctx, "history"); !errors.Is(err, garrison.ErrNotFound) {
		t.Errorf("history record after DELETE: %v, want it gone", err)
	}

	h.forge.mu.Lock()
	h.forge.removeErr = garrison.ErrUnauthorized
	h.forge.mu.Unlock()
	h.expectError(h.call("DELETE", api("/instances/unauth"+q), tok, nil), 401, "Not Authorized", "")
	if got, _ := h.store.Instance(ctx, "unauth"); got.Status != garrison.InstanceRunning {
		t.Errorf("status after refused delete = %s", got.Status)
	}
	h.expect(h.call("DELETE", api("/instances/unauth?bypassGHUnauthorized=true&forceRemove=false"), tok, nil), 200, nil)
	if got, _ := h.store.Instance(ctx, "unauth"); got.Status != garrison.InstancePendingDelete {
		t.Errorf("status after bypassed delete = %s", got.Status)
	}
	evs, err := h.store.EntityEvents(ctx, f.repoID, 10)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Level != garrison.LevelError {
		t.Errorf("entity events = %+v, %v", evs, err)
	}
}

func TestRotateOutdatedRunners(t *testing.T) {
	var rotated []string
	f := newFixture(t, func(o *httpapi.Options) {
		o.RotateOutdated = func(_ context.Context, poolID string) (int, error) {
			rotated = append(rotated, poolID)
			return 2, nil
		}
	})
	h, tok := f.h, f.tok
	var out apiv1.RotateRunnersResponse
	h.expect(h.call("POST", api("/pools/"+f.poolID+"/runners/rotate"), tok, nil), 200, &out)
	if out.Rotated != 2 || len(rotated) != 1 || rotated[0] != f.poolID {
		t.Errorf("rotate: %+v, calls %v", out, rotated)
	}
	h.expectError(h.call("POST", api("/pools/00000000-0000-4000-8000-000000000000/runners/rotate"), tok, nil), 404, "Not Found", "pool 00000000-0000-4000-8000-000000000000 not found")
	r := h.call("POST", api("/pools/not-a-uuid/runners/rotate"), tok, nil)
	if r.status != 400 {
		t.Errorf("bad pool id: %d %s", r.status, r.body)
	}
	h.expectError(h.call("POST", api("/pools/"+f.poolID+"/runners/rotate"), "", nil), 401, "Authentication failed", "")
}

func TestJobsShowWhyTheyWait(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for _, j := range []struct {
		id     int64
		action garrison.JobAction
		reason string
	}{{11, garrison.JobQueued, "no pool has all of the labels [gpu]"}, {12, garrison.JobQueued, ""}, {13, garrison.JobCompleted, ""}} {
		if _, err := f.h.store.UpsertJob(ctx, j.id, func(job *garrison.Job, _ bool) error {
			job.Action, job.Reason, job.EntityID, job.EntityType = j.action, j.reason, f.repoID, garrison.Repository
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	var jobs []apiv1.Job
	f.h.expect(f.h.call("GET", api("/jobs"), f.tok, nil), 200, &jobs)
	want := map[int64]string{11: "no pool has all of the labels [gpu]", 12: "", 13: ""}
	if len(jobs) != 3 {
		t.Fatalf("jobs %+v", jobs)
	}
	for _, j := range jobs {
		if j.Reason != want[j.WorkflowJobID] {
			t.Errorf("job %d reason %q, want %q (the ledger's)", j.WorkflowJobID, j.Reason, want[j.WorkflowJobID])
		}
	}
}

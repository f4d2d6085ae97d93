package httpapi_test

import (
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// giteaSetup creates the Gitea endpoints gitea-local and gitea-two with PAT credentials
// gitea-pat and two-pat, and GitHub credentials gh-pat on github.com.
func giteaSetup(t *testing.T, h *harness, tok string) {
	t.Helper()
	for _, ep := range []struct{ name, creds string }{{"gitea-local", "gitea-pat"}, {"gitea-two", "two-pat"}} {
		h.expect(h.call("POST", api("/gitea/endpoints"), tok, map[string]any{
			"name": ep.name, "description": "gitea", "base_url": "https://" + ep.name + ".example.com",
			"api_base_url": "https://" + ep.name + ".example.com/api/v1"}), 200, nil)
		h.expect(h.call("POST", api("/gitea/credentials"), tok, map[string]any{
			"name": ep.creds, "description": "d", "endpoint": ep.name, "auth_type": "pat",
			"pat": map[string]any{"oauth2_token": "tok"}}), 200, nil)
	}
	h.expect(h.call("POST", api("/github/credentials"), tok, map[string]any{
		"name": "gh-pat", "description": "d", "endpoint": "github.com", "auth_type": "pat",
		"pat": map[string]any{"oauth2_token": "tok"}}), 200, nil)
}

func newFI(endpoint, creds string) map[string]any {
	return map[string]any{"endpoint_name": endpoint, "credentials_name": creds, "webhook_secret": "s3cr3t",
		"forge_type": "gitea", "pool_balancer_type": "roundrobin"}
}

func withKey(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for kk, vv := range m {
		out[kk] = vv
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

// TestForgeInstanceCreateValidation checks every refusal of §4.3 in order, and that a
// refused create stores nothing.
func TestForgeInstanceCreateValidation(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	giteaSetup(t, h, tok)
	ok := newFI("gitea-local", "gitea-pat")
	tests := []struct {
		name    string
		body    any
		status  int
		details string
	}{
		{"no endpoint", withKey(ok, "endpoint_name", nil), 400, "error validating params: missing endpoint name"},
		{"no credentials", withKey(ok, "credentials_name", ""), 400, "error validating params: missing credentials name"},
		{"no secret", withKey(ok, "webhook_secret", nil), 400, "error validating params: missing webhook secret"},
		{"github forge", withKey(ok, "forge_type", "github"), 400, `error validating params: forge type "github" does not support instance-level pools`},
		{"bad balancer", withKey(ok, "pool_balancer_type", "random"), 400, "error validating params: invalid pool balancer type"},
		{"agent mode", withKey(ok, "agent_mode", true), 400, "agent mode is not supported by this server (garm-agent is not available)"},
		{"unknown credentials", withKey(ok, "credentials_name", "nope"), 400, "credentials nope not defined"},
		{"github credentials", withKey(ok, "credentials_name", "gh-pat"), 400, "credentials gh-pat not defined"},
		{"other endpoint", withKey(ok, "credentials_name", "two-pat"), 400, `credentials endpoint "gitea-two" does not match requested endpoint "gitea-local"`},
		{"endpoint case", withKey(ok, "endpoint_name", "GITEA-LOCAL"), 400, `credentials endpoint "gitea-local" does not match requested endpoint "GITEA-LOCAL"`},
		{"not JSON", []byte(`{"endpoint_name":`), 400, "invalid request: unexpected EOF at offset 17"},
		{"wrong type", []byte(`{"endpoint_name": 5}`), 400, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call("POST", api("/forge-instances"), tok, tc.body)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.details != "" {
				h.expectError(r, tc.status, "Bad Request", tc.details)
			}
		})
	}
	var list []apiv1.ForgeInstance
	h.expect(h.call("GET", api("/forge-instances"), tok, nil), 200, &list)
	if len(list) != 0 {
		t.Fatalf("refused creates stored %d forge instances", len(list))
	}
	// An empty forge_type means gitea, as garm-cli's default.
	h.expect(h.call("POST", api("/forge-instances"), tok, withKey(ok, "forge_type", nil)), 200, nil)
	r := h.call("POST", api("/forge-instances"), tok, ok)
	h.expectError(r, 409, "Conflict", "forge instance for endpoint gitea-local already exists")
}

// TestForgeInstanceLifecycle walks the routes of §4.1 as garm-cli uses them.
func TestForgeInstanceLifecycle(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	giteaSetup(t, h, tok)
	r := h.call("POST", api("/forge-instances"), tok, newFI("gitea-local", "gitea-pat"))
	var fi apiv1.ForgeInstance
	h.expect(r, 200, &fi)
	m := keys(t, r.body)
	requireKeys(t, m, "id", "credentials_name", "credentials", "credentials_id", "pool_manager_status",
		"pool_balancing_type", "endpoint", "agent_mode", "created_at", "updated_at")
	forbidKeys(t, m, "owner", "name", "webhook_secret", "pool", "events")
	if fi.Endpoint.Name != "gitea-local" || fi.CredentialsName != "gitea-pat" || fi.PoolBalancerType != "roundrobin" {
		t.Fatalf("created %+v", fi)
	}
	path := api("/forge-instances/" + fi.ID)

	// list and the endpoint filter (case-insensitive, R2-13)
	for q, want := range map[string]int{"": 1, "?endpoint=GITEA-local": 1, "?endpoint=gitea-two": 0} {
		var list []apiv1.ForgeInstance
		h.expect(h.call("GET", api("/forge-instances"+q), tok, nil), 200, &list)
		if len(list) != want {
			t.Errorf("list%s: %d forge instances, want %d", q, len(list), want)
		}
	}
	// the forge instance is not a repository or an organization
	var repos []apiv1.Repository
	h.expect(h.call("GET", api("/repositories"), tok, nil), 200, &repos)
	if len(repos) != 0 {
		t.Fatalf("repositories list shows %+v", repos)
	}
	h.expectError(h.call("GET", api("/organizations/"+fi.ID), tok, nil), 404, "Not Found", "organization "+fi.ID+" not found")
	h.expect(h.call("GET", api("/forge-instances/not-a-uuid"), tok, nil), 400, nil)
	missing := api("/forge-instances/00000000-0000-0000-0000-000000000001")
	for _, method := range []string{"GET", "PUT", "DELETE"} {
		h.expectError(h.call(method, missing, tok, map[string]any{}), 404, "Not Found", fiNotFound)
	}

	// update
	h.expect(h.call("PUT", path, tok, map[string]any{"pool_balancer_type": "pack"}), 200, &fi)
	if fi.PoolBalancerType != "pack" {
		t.Fatalf("after update %+v", fi)
	}
	h.expect(h.call("PUT", path, tok, map[string]any{"pool_balancer_type": "nope"}), 400, nil)
	h.expect(h.call("PUT", path, tok, map[string]any{"credentials_name": "two-pat"}), 400, nil)
	h.expect(h.call("PUT", path, tok, map[string]any{"agent_mode": true}), 400, nil)

	// pools on it
	var pool apiv1.Pool
	h.expect(h.call("POST", path+"/pools", tok, map[string]any{"provider_name": "lxd", "max_runners": 2,
		"image": "ubuntu", "flavor": "small", "os_type": "linux", "os_arch": "amd64", "tags": []string{"ubuntu-latest"}}), 200, &pool)
	if pool.ForgeInstanceID != fi.ID || pool.RunnerBootstrapTimeout != 20 {
		t.Fatalf("pool %+v", pool)
	}
	var pools []apiv1.Pool
	h.expect(h.call("GET", path+"/pools", tok, nil), 200, &pools)
	if len(pools) != 1 || pools[0].ForgeInstanceID != fi.ID {
		t.Fatalf("forge instance pools %+v", pools)
	}
	h.expect(h.call("GET", path+"/pools/"+pool.ID, tok, nil), 200, nil)
	h.expect(h.call("GET", path+"/pools/00000000-0000-0000-0000-000000000001", tok, nil), 404, nil)
	h.expect(h.call("PUT", path+"/pools/"+pool.ID, tok, map[string]any{"max_runners": 3}), 200, &pool)
	h.expect(h.call("GET", api("/pools/"+pool.ID), tok, nil), 200, &pool)
	if pool.ForgeInstanceID != fi.ID || pool.MaxRunners != 3 {
		t.Fatalf("pool by id %+v", pool)
	}
	var insts []apiv1.Instance
	h.expect(h.call("GET", path+"/instances", tok, nil), 200, &insts)
	r = h.call("GET", path, tok, nil)
	h.expect(r, 200, &fi)
	if len(fi.Pools) != 1 {
		t.Fatalf("GET by id pools %+v", fi.Pools)
	}

	// webhook routes
	var hook apiv1.HookInfo
	h.expect(h.call("POST", path+"/webhook", tok, map[string]any{"webhook_endpoint_type": "direct"}), 200, &hook)
	var info apiv1.ControllerInfo
	h.expect(h.call("GET", api("/controller-info"), tok, nil), 200, &info)
	if !strings.HasSuffix(hook.URL, "/webhooks/"+info.ControllerID) {
		t.Fatalf("hook %+v", hook)
	}
	h.expect(h.call("GET", path+"/webhook", tok, nil), 200, &hook)
	h.expect(h.call("POST", path+"/webhook", tok, map[string]any{}), 409, nil)

	// delete: refused with pools and for its credentials; then removes the hook
	h.expectError(h.call("DELETE", path, tok, nil), 400, "Bad Request", "forge instance has pools defined ("+pool.ID+")")
	h.expect(h.call("DELETE", path+"/pools/"+pool.ID, tok, nil), 200, nil)
	var creds []apiv1.ForgeCredentials
	h.expect(h.call("GET", api("/gitea/credentials"), tok, nil), 200, &creds)
	for _, c := range creds {
		if c.Name == "gitea-pat" {
			h.expectError(h.call("DELETE", api("/gitea/credentials/")+itoa(c.ID), tok, nil), 400, "Bad Request",
				"cannot delete credentials with forge instances")
		}
	}
	h.expect(h.call("DELETE", path, tok, nil), 200, nil)
	h.forge.mu.Lock()
	left := len(h.forge.hooks)
	h.forge.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d hooks left after deleting the forge instance", left)
	}
	h.expectError(h.call("GET", path, tok, nil), 404, "Not Found", fiNotFound)
}

// fiNotFound is the 404 details of an unknown forge instance (rest-api-2 §4.4).
const fiNotFound = "error fetching forge instance: error fetching forge instance: not found"

package httpapi_test

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// TestGarmCLIFlowsSQLite drives every garm-cli flow of rest-api.md §5 against SQLite.
func TestGarmCLIFlowsSQLite(t *testing.T) {
	runGarmCLIFlows(t, openSQLite)
}

// runGarmCLIFlows is the garm-cli flows suite, on any store.
func runGarmCLIFlows(t *testing.T, open func(testing.TB) store.Store) {
	h := newHarness(t, open)
	tok := flowInit(t, h)
	flowProfile(t, h, tok)
	flowController(t, h, tok)
	flowEndpointsAndCredentials(t, h, tok)
	repoID := flowRepo(t, h, tok)
	flowOrgAndEnterprise(t, h, tok)
	poolID := flowPools(t, h, tok, repoID)
	flowRunnersAndJobs(t, h, tok, repoID, poolID)
	flowProviders(t, h, tok)
	flowDeletes(t, h, tok, repoID, poolID)
}

// flowInit: garm-cli init → first-run, login (both with "Bearer " empty), PUT /controller.
func flowInit(t *testing.T, h *harness) string {
	h.expectError(h.call("GET", api("/controller-info"), "", nil), 409, "init_required", "Missing superuser")

	r := h.call("POST", api("/first-run"), "", map[string]string{
		"email": adminEmail, "username": adminUser, "full_name": "Ada Admin", "password": adminPassword})
	var u apiv1.User
	h.expect(r, 200, &u)
	if u.ID == "" || u.Username != adminUser || u.Email != adminEmail || u.FullName != "Ada Admin" || !u.Enabled || !u.IsAdmin {
		t.Errorf("first-run user = %+v", u)
	}
	m := keys(t, r.body)
	requireKeys(t, m, "id", "created_at", "updated_at", "email", "username", "full_name", "enabled", "is_admin")
	forbidKeys(t, m, "password", "password_hash")
	if strings.Contains(string(r.body), adminPassword) {
		t.Error("first-run response contains the password")
	}

	tok := h.login()

	// URLs are not set yet: everything behind the urls check answers 409.
	h.expectError(h.call("GET", api("/controller-info"), tok, nil), 409, "urls_required",
		"Missing required URLs. Make sure you update the metadata and callback URLs")

	base := "https://garrison.example.com"
	r = h.call("PUT", api("/controller"), tok, map[string]any{
		"metadata_url": base + "/api/v1/metadata", "callback_url": base + "/api/v1/callbacks",
		"webhook_url": base + "/webhooks", "agent_url": base + "/agent"})
	var ci apiv1.ControllerInfo
	h.expect(r, 200, &ci)
	if ci.Hostname != testHostname {
		t.Errorf("PUT /controller hostname = %q", ci.Hostname)
	}
	if ci.MetadataURL != base+"/api/v1/metadata" || ci.CallbackURL != base+"/api/v1/callbacks" ||
		ci.WebhookURL != base+"/webhooks" || ci.AgentURL != base+"/agent" {
		t.Errorf("controller = %+v", ci)
	}
	if ci.ControllerWebhookURL != base+"/webhooks/"+ci.ControllerID {
		t.Errorf("controller_webhook_url = %q", ci.ControllerWebhookURL)
	}
	return tok
}

// flowProfile: profile add / login (old token still sent).
func flowProfile(t *testing.T, h *harness, tok string) {
	var j apiv1.JWTResponse
	h.expect(h.call("POST", api("/auth/login"), tok, map[string]string{"username": adminUser, "password": adminPassword}), 200, &j)
	h.expect(h.call("POST", api("/auth/login"), "stale.token.value", map[string]string{"username": adminUser, "password": adminPassword}), 200, &j)
	if j.Token == "" {
		t.Fatal("no token")
	}
}

// flowController: controller show and update.
func flowController(t *testing.T, h *harness, tok string) {
	r := h.call("GET", api("/controller-info"), tok, nil)
	var ci apiv1.ControllerInfo
	h.expect(r, 200, &ci)
	m := keys(t, r.body)
	requireKeys(t, m, "controller_id", "hostname", "metadata_url", "callback_url", "webhook_url",
		"controller_webhook_url", "agent_url", "garm_agent_releases_url", "enable_agent_tools_sync",
		"garm_agent_version", "allow_insecure_garm_agent", "minimum_job_age_backoff", "version")
	if ci.Version != testVersion || ci.GARMAgentReleasesURL != garrison.DefaultAgentReleasesURL || ci.Hostname != testHostname {
		t.Errorf("controller-info = %+v", ci)
	}

	ca := testCA(t)
	r = h.call("PUT", api("/controller"), tok, map[string]any{
		"minimum_job_age_backoff": 45, "garm_agent_version": "latest", "enable_agent_tools_sync": false,
		"allow_insecure_garm_agent": false, "ca_cert_bundle": append(append([]byte{}, ca...), ca...)})
	h.expect(r, 200, &ci)
	if ci.MinimumJobAgeBackoff != 45 || ci.GARMAgentVersion != "" || ci.EnableAgentToolsSync ||
		ci.AllowInsecureGARMAgent || ci.GARMAgentReleasesURL != garrison.DefaultAgentReleasesURL {
		t.Errorf("updated controller = %+v", ci)
	}
	if string(ci.CACertBundle) != string(ca) { // stored de-duplicated
		t.Errorf("ca_cert_bundle not de-duplicated: %q", ci.CACertBundle)
	}
	h.expect(h.call("PUT", api("/controller"), tok, map[string]any{"clear_ca_cert_bundle": true, "garm_agent_releases_url": ""}), 200, &ci)
	if len(ci.CACertBundle) != 0 || ci.GARMAgentReleasesURL != garrison.DefaultAgentReleasesURL {
		t.Errorf("after clear: %+v", ci)
	}
	// GET /controller answers too (init+auth only).
	h.expect(h.call("GET", api("/controller/"), tok, nil), 200, &ci)
}

// flowEndpointsAndCredentials: github/gitea endpoint create+list, credentials add+list.
func flowEndpointsAndCredentials(t *testing.T, h *harness, tok string) {
	ca := testCA(t)
	r := h.call("POST", api("/github/endpoints"), tok, map[string]any{
		"name": "ghes", "description": "GHES", "base_url": "https://ghes.example.com",
		"api_base_url": "https://ghes.example.com/api/v3/", "upload_base_url": "https://ghes.example.com/api/uploads/",
		"ca_cert_bundle": ca})
	var ep apiv1.ForgeEndpoint
	h.expect(r, 200, &ep)
	if ep.Name != "ghes" || ep.EndpointType != "github" || ep.BaseURL != "https://ghes.example.com" ||
		ep.UploadBaseURL != "https://ghes.example.com/api/uploads/" || string(ep.CACertBundle) != string(ca) {
		t.Errorf("endpoint = %+v", ep)
	}
	requireKeys(t, keys(t, r.body), "name", "description", "api_base_url", "upload_base_url", "base_url",
		"ca_cert_bundle", "created_at", "updated_at", "endpoint_type")

	var eps []apiv1.ForgeEndpoint
	h.expect(h.call("GET", api("/github/endpoints"), tok, nil), 200, &eps)
	names := map[string]apiv1.ForgeEndpoint{}
	for _, e := range eps {
		names[e.Name] = e
	}
	if gh, ok := names["github.com"]; !ok || gh.APIBaseURL != garrison.GitHubComAPIBaseURL || len(eps) != 2 {
		t.Errorf("github endpoints = %+v", eps)
	}

	// PAT credentials: the CLI sends both pat and app objects.
	r = h.call("POST", api("/github/credentials"), tok, map[string]any{
		"name": "gh-pat", "description": "pat creds", "endpoint": "github.com", "auth_type": "pat",
		"pat": map[string]any{"oauth2_token": "ghp_secret"}, "app": map[string]any{}})
	var c apiv1.ForgeCredentials
	h.expect(r, 200, &c)
	m := keys(t, r.body)
	requireKeys(t, m, "id", "name", "auth-type", "forge_type", "endpoint", "base_url", "api_base_url")
	forbidKeys(t, m, "auth_type", "pat", "app", "oauth2_token")
	if c.ID == 0 || c.AuthType != "pat" || c.ForgeType != "github" || c.Endpoint.Name != "github.com" ||
		c.BaseURL != garrison.GitHubComBaseURL {
		t.Errorf("credentials = %+v", c)
	}
	if strings.Contains(string(r.body), "ghp_secret") {
		t.Error("credentials response leaks the token")
	}

	key := testRSAKey(t, false)
	r = h.call("POST", api("/github/credentials"), tok, map[string]any{
		"name": "gh-app", "description": "app creds", "endpoint": "ghes", "auth_type": "app",
		"pat": map[string]any{}, "app": map[string]any{"app_id": 12, "installation_id": 34, "private_key_bytes": key}})
	h.expect(r, 200, &c)
	if c.AuthType != "app" || c.Endpoint.Name != "ghes" || string(c.CABundle) != string(ca) {
		t.Errorf("app credentials = %+v", c)
	}
	if strings.Contains(string(r.body), base64.StdEncoding.EncodeToString(key)[:40]) {
		t.Error("credentials response leaks the key")
	}

	var cs []apiv1.ForgeCredentials
	h.expect(h.call("GET", api("/github/credentials"), tok, nil), 200, &cs)
	if len(cs) != 2 {
		t.Errorf("github credentials = %+v", cs)
	}
	h.expect(h.call("GET", api("/credentials"), tok, nil), 200, &cs)
	if len(cs) != 2 {
		t.Errorf("legacy credentials = %+v", cs)
	}

	// Gitea.
	r = h.call("POST", api("/gitea/endpoints"), tok, map[string]any{
		"name": "gitea-local", "description": "gitea", "base_url": "https://gitea.example.com",
		"api_base_url": "https://gitea.example.com/api/v1", "tools_metadata_url": garrison.DefaultGiteaToolsURL,
		"use_internal_tools_metadata": false})
	h.expect(r, 200, &ep)
	if ep.EndpointType != "gitea" || ep.ToolsMetadataURL != garrison.DefaultGiteaToolsURL || ep.UploadBaseURL != "" {
		t.Errorf("gitea endpoint = %+v", ep)
	}
	h.expect(h.call("GET", api("/gitea/endpoints"), tok, nil), 200, &eps)
	if len(eps) != 1 || eps[0].Name != "gitea-local" {
		t.Errorf("gitea endpoints = %+v", eps)
	}
	r = h.call("POST", api("/gitea/credentials"), tok, map[string]any{
		"name": "gitea-pat", "description": "d", "endpoint": "gitea-local", "auth_type": "pat",
		"pat": map[string]any{"oauth2_token": "tok"}, "app": map[string]any{}})
	h.expect(r, 200, &c)
	if c.ForgeType != "gitea" || c.AuthType != "pat" {
		t.Errorf("gitea credentials = %+v", c)
	}
	h.expect(h.call("GET", api("/gitea/credentials"), tok, nil), 200, &cs)
	if len(cs) != 1 || cs[0].RateLimit != nil {
		t.Errorf("gitea credentials = %+v", cs)
	}
}

// flowRepo: repo add (+webhook install), list, show by owner/name, update, webhook routes.
func flowRepo(t *testing.T, h *harness, tok string) string {
	r := h.call("POST", api("/repositories"), tok, map[string]any{
		"owner": "acme", "name": "widgets", "credentials_name": "gh-pat", "webhook_secret": "0123456789abcdef0123456789abcdef",
		"forge_type": "", "pool_balancer_type": "roundrobin", "agent_mode": false})
	var repo apiv1.Repository
	h.expect(r, 200, &repo)
	if repo.ID == "" || repo.Owner != "acme" || repo.Name != "widgets" || repo.CredentialsName != "gh-pat" ||
		repo.Credentials.Name != "gh-pat" || repo.Endpoint.Name != "github.com" || repo.Endpoint.EndpointType != "github" ||
		repo.PoolBalancerType != "roundrobin" {
		t.Errorf("repo = %+v", repo)
	}
	m := keys(t, r.body)
	requireKeys(t, m, "id", "owner", "name", "credentials_name", "credentials_id", "credentials", "endpoint",
		"pool_manager_status", "pool_balancing_type", "agent_mode")
	forbidKeys(t, m, "webhook_secret", "pool_balancer_type")
	if strings.Contains(string(r.body), "0123456789abcdef0123456789abcdef") {
		t.Error("repo response leaks the webhook secret")
	}

	// --install-webhook, then GET.
	var hook apiv1.HookInfo
	h.expect(h.call("POST", api("/repositories/"+repo.ID+"/webhook"), tok, map[string]any{"webhook_endpoint_type": "direct"}), 200, &hook)
	if !hook.Active || !strings.HasPrefix(hook.URL, "https://garrison.example.com/webhooks/") || len(hook.Events) != 1 {
		t.Errorf("hook = %+v", hook)
	}
	h.expect(h.call("GET", api("/repositories/"+repo.ID), tok, nil), 200, &repo)

	// A Gitea repo resolved by credentials name alone.
	var grepo apiv1.Repository
	h.expect(h.call("POST", api("/repositories"), tok, map[string]any{
		"owner": "acme", "name": "widgets", "credentials_name": "gitea-pat", "webhook_secret": "s",
		"pool_balancer_type": "pack"}), 200, &grepo)
	if grepo.Endpoint.EndpointType != "gitea" || grepo.PoolBalancerType != "pack" {
		t.Errorf("gitea repo = %+v", grepo)
	}

	var repos []apiv1.Repository
	h.expect(h.call("GET", api("/repositories"), tok, nil), 200, &repos)
	if len(repos) != 2 {
		t.Errorf("repos = %+v", repos)
	}
	q := url.Values{"owner": {"acme"}, "name": {"widgets"}, "endpoint": {"github.com"}}
	h.expect(h.call("GET", api("/repositories?"+q.Encode()), tok, nil), 200, &repos)
	if len(repos) != 1 || repos[0].ID != repo.ID {
		t.Fatalf("resolve acme/widgets = %+v", repos)
	}
	h.expect(h.call("GET", api("/repositories?owner=nobody&name=widgets"), tok, nil), 200, &repos)
	if len(repos) != 0 {
		t.Errorf("filtered repos = %+v", repos)
	}

	// repo update: credentials on the same endpoint, new secret, balancer, agent mode off.
	r = h.call("PUT", api("/repositories/"+repo.ID), tok, map[string]any{
		"credentials_name": "gh-pat", "webhook_secret": "new-secret", "pool_balancer_type": "pack", "agent_mode": false})
	h.expect(r, 200, &repo)
	if repo.PoolBalancerType != "pack" || repo.AgentMode {
		t.Errorf("updated repo = %+v", repo)
	}
	h.expectError(h.call("PUT", api("/repositories/"+repo.ID), tok, map[string]any{"credentials_name": "gh-app"}),
		400, "Bad Request", "endpoint mismatch")

	// repo webhook show/uninstall.
	h.expect(h.call("GET", api("/repositories/"+repo.ID+"/webhook"), tok, nil), 200, &hook)
	r = h.call("DELETE", api("/repositories/"+repo.ID+"/webhook"), tok, nil)
	h.expect(r, 200, nil)
	if len(r.body) != 0 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("uninstall answered %q (%s)", r.body, r.header.Get("Content-Type"))
	}
	h.expectError(h.call("GET", api("/repositories/"+repo.ID+"/webhook"), tok, nil), 404, "Not Found", "hook not found")
	return repo.ID
}

// flowOrgAndEnterprise: org add/list and enterprise add/list.
func flowOrgAndEnterprise(t *testing.T, h *harness, tok string) {
	var org apiv1.Organization
	r := h.call("POST", api("/organizations"), tok, map[string]any{
		"name": "acme", "credentials_name": "gh-pat", "webhook_secret": "x", "forge_type": "github",
		"pool_balancer_type": "roundrobin", "agent_mode": false})
	h.expect(r, 200, &org)
	forbidKeys(t, keys(t, r.body), "owner")
	h.expect(h.call("GET", api("/organizations/"+org.ID), tok, nil), 200, &org)
	var orgs []apiv1.Organization
	h.expect(h.call("GET", api("/organizations?name=acme&endpoint=github.com"), tok, nil), 200, &orgs)
	if len(orgs) != 1 || orgs[0].ID != org.ID || orgs[0].Endpoint.Name != "github.com" {
		t.Errorf("orgs = %+v", orgs)
	}
	var ent apiv1.Enterprise
	h.expect(h.call("POST", api("/enterprises"), tok, map[string]any{
		"name": "acme-ent", "credentials_name": "gh-app", "webhook_secret": "x", "pool_balancer_type": "roundrobin",
		"agent_mode": false}), 200, &ent)
	if ent.Name != "acme-ent" || ent.Endpoint.Name != "ghes" || ent.Credentials.AuthType != "app" {
		t.Errorf("enterprise = %+v", ent)
	}
	var ents []apiv1.Enterprise
	h.expect(h.call("GET", api("/enterprises?name=acme-ent"), tok, nil), 200, &ents)
	if len(ents) != 1 {
		t.Errorf("enterprises = %+v", ents)
	}
	// Enterprises have no webhook routes.
	h.expectError(h.call("POST", api("/enterprises/"+ent.ID+"/webhook"), tok, map[string]any{}), 404, "Not found", "Resource not found")
	// Credentials by id list the entities using them.
	var c apiv1.ForgeCredentials
	h.expect(h.call("GET", api("/github/credentials/"+itoa(ent.CredentialsID)), tok, nil), 200, &c)
	if len(c.Enterprises) != 1 || c.Enterprises[0].ID != ent.ID {
		t.Errorf("credentials detail = %+v", c)
	}
	h.expect(h.call("GET", api("/github/credentials/"+itoa(org.CredentialsID)), tok, nil), 200, &c)
	if len(c.Repositories) != 1 || len(c.Organizations) != 1 || c.Repositories[0].Owner != "acme" {
		t.Errorf("credentials detail = %+v", c)
	}
}

// flowPools: pool add, list (both routes), show, update.
func flowPools(t *testing.T, h *harness, tok, repoID string) string {
	body := map[string]any{
		"provider_name": "lxd", "max_runners": 5, "min_idle_runners": 1, "image": "ubuntu:24.04",
		"flavor": "default", "os_type": "linux", "os_arch": "amd64", "tags": []string{"self-hosted", "X64", "x64"},
		"runner_bootstrap_timeout": 20, "enable_shell": false, "runner_prefix": "acme",
		"github-runner-group": "team", "priority": 3, "extra_specs": map[string]any{"disk": 20}}
	r := h.call("POST", api("/repositories/"+repoID+"/pools"), tok, body)
	var p apiv1.Pool
	h.expect(r, 200, &p)
	if p.ID == "" || p.ProviderName != "lxd" || p.MaxRunners != 5 || p.MinIdleRunners != 1 || p.RepoID != repoID ||
		p.RepoName != "acme/widgets" || p.Endpoint.Name != "github.com" || p.RunnerPrefix != "acme" ||
		p.GitHubRunnerGroup != "team" || p.Priority != 3 || p.Enabled || len(p.Tags) != 2 || p.Tags[0].ID == "" {
		t.Errorf("pool = %+v", p)
	}

	// pool show: extra_specs, instances, the hyphenated runner group key.
	r = h.call("GET", api("/pools/"+p.ID), tok, nil)
	h.expect(r, 200, &p)
	m := keys(t, r.body)
	requireKeys(t, m, "id", "tags", "extra_specs", "github-runner-group", "enable_shell", "generation",
		"repo_id", "repo_name", "endpoint", "runner_bootstrap_timeout", "provider_name")
	var specs map[string]int
	if err := json.Unmarshal(p.ExtraSpecs, &specs); err != nil || specs["disk"] != 20 {
		t.Errorf("extra_specs = %s", p.ExtraSpecs)
	}

	// Lists omit extra_specs and instances.
	var pools []json.RawMessage
	for _, path := range []string{"/pools", "/repositories/" + repoID + "/pools"} {
		h.expect(h.call("GET", api(path), tok, nil), 200, &pools)
		if len(pools) != 1 {
			t.Fatalf("%s = %s", path, pools)
		}
		forbidKeys(t, keys(t, pools[0]), "extra_specs", "instances")
	}

	// The repository now shows its pool under the singular key "pool".
	r = h.call("GET", api("/repositories/"+repoID), tok, nil)
	var repo apiv1.Repository
	h.expect(r, 200, &repo)
	requireKeys(t, keys(t, r.body), "pool", "pool_balancing_type", "pool_manager_status")
	if len(repo.Pools) != 1 || repo.Pools[0].ID != p.ID {
		t.Errorf("repo pools = %+v", repo.Pools)
	}

	// pool update: enable_shell null must be accepted; generation bumps on image change.
	gen := p.Generation
	r = h.call("PUT", api("/pools/"+p.ID), tok, []byte(`{"max_runners":10,"image":"ubuntu:26.04","enabled":true,"enable_shell":null}`))
	h.expect(r, 200, &p)
	if p.MaxRunners != 10 || p.Image != "ubuntu:26.04" || !p.Enabled || p.Generation != gen+1 {
		t.Errorf("updated pool = %+v (generation was %d)", p, gen)
	}
	h.expect(h.call("PUT", api("/repositories/"+repoID+"/pools/"+p.ID), tok, map[string]any{"tags": []string{"arm"}, "enable_shell": false}), 200, &p)
	if len(p.Tags) != 1 || p.Tags[0].Name != "arm" || p.EnableShell {
		t.Errorf("entity-route update = %+v", p)
	}
	h.expect(h.call("GET", api("/repositories/"+repoID+"/pools/"+p.ID), tok, nil), 200, &p)
	if !h.wasNotified(p.ID) {
		t.Error("pool writes did not notify")
	}
	return p.ID
}

func (h *harness) wasNotified(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.notified {
		if n == id {
			return true
		}
	}
	return false
}

// flowRunnersAndJobs: runner list (pool, entity, all), show, delete; job list.
func flowRunnersAndJobs(t *testing.T, h *harness, tok, repoID, poolID string) {
	ctx := t.Context()
	for i, name := range []string{"acme-r1", "acme-r2"} {
		_, err := h.store.CreateInstance(ctx, garrison.Instance{Name: name, PoolID: poolID, ProviderName: "lxd",
			OSType: "linux", OSArch: "amd64", Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle,
			AgentID: int64(100 + i), Generation: uint64(i), Addresses: []garrison.Address{{Address: "10.0.0.1", Type: "private"}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := h.store.AddInstanceEvent(ctx, "acme-r1", garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "booted"}); err != nil {
		t.Fatal(err)
	}
	var is []apiv1.Instance
	for _, path := range []string{"/pools/" + poolID + "/instances", "/repositories/" + repoID + "/instances", "/instances"} {
		h.expect(h.call("GET", api(path), tok, nil), 200, &is)
		if len(is) != 2 {
			t.Errorf("%s = %+v", path, is)
		}
	}
	p, err := h.store.Pool(ctx, poolID)
	if err != nil {
		t.Fatal(err)
	}
	h.expect(h.call("GET", api("/pools/"+poolID+"/instances?outdatedOnly=true"), tok, nil), 200, &is)
	if want := 0; p.Generation > 0 {
		want = 1
		if p.Generation > 1 {
			want = 2
		}
		if len(is) != want {
			t.Errorf("outdated = %d instances, want %d (pool generation %d)", len(is), want, p.Generation)
		}
	}

	r := h.call("GET", api("/instances/acme-r1"), tok, nil)
	var in apiv1.Instance
	h.expect(r, 200, &in)
	requireKeys(t, keys(t, r.body), "name", "status", "runner_status", "pool_id", "provider_name", "os_type",
		"os_arch", "addresses", "status_messages", "heartbeat", "capabilities", "generation", "agent_id")
	if in.Name != "acme-r1" || in.Status != "running" || in.RunnerStatus != "idle" || in.PoolID != poolID ||
		len(in.Addresses) != 1 || len(in.StatusMessages) != 1 || in.StatusMessages[0].Message != "booted" ||
		in.Capabilities.HasShell {
		t.Errorf("instance = %+v", in)
	}

	// runner delete: both params always sent; the forge runner is removed first.
	h.expect(h.call("DELETE", api("/instances/acme-r1?bypassGHUnauthorized=false&forceRemove=false"), tok, nil), 200, nil)
	got, err := h.store.Instance(ctx, "acme-r1")
	if err != nil || got.Status != garrison.InstancePendingDelete {
		t.Errorf("after delete: %+v, %v", got.Status, err)
	}
	h.forge.mu.Lock()
	removed := append([]int64(nil), h.forge.removed...)
	h.forge.mu.Unlock()
	if len(removed) != 1 || removed[0] != 100 {
		t.Errorf("forge runners removed = %v", removed)
	}
	// Deleting again succeeds (already being deleted); forcing upgrades the status.
	h.expect(h.call("DELETE", api("/instances/acme-r1?bypassGHUnauthorized=false&forceRemove=true"), tok, nil), 200, nil)
	if got, _ := h.store.Instance(ctx, "acme-r1"); got.Status != garrison.InstancePendingForceDelete {
		t.Errorf("forced status = %s", got.Status)
	}
	h.expectError(h.call("DELETE", api("/instances/nope?bypassGHUnauthorized=false&forceRemove=false"), tok, nil), 404, "Not Found", garrisonMsg(t, h, "nope"))

	// job list.
	_, err = h.store.UpsertJob(ctx, 4242, func(j *garrison.Job, _ bool) error {
		j.Action, j.Name, j.Labels, j.EntityID, j.EntityType = garrison.JobQueued, "build", []string{"self-hosted"}, repoID, garrison.Repository
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r = h.call("GET", api("/jobs"), tok, nil)
	var jobs []apiv1.Job
	h.expect(r, 200, &jobs)
	if len(jobs) != 1 || jobs[0].ID != 1 || jobs[0].WorkflowJobID != 4242 || jobs[0].LockedBy != "00000000-0000-0000-0000-000000000000" ||
		jobs[0].RepoID == nil || *jobs[0].RepoID != repoID {
		t.Errorf("jobs = %s", r.body)
	}
}

// garrisonMsg is the store's not-found message for an instance name.
func garrisonMsg(t *testing.T, h *harness, name string) string {
	_, err := h.store.Instance(t.Context(), name)
	return garrison.MessageOf(err)
}

// flowProviders: provider list.
func flowProviders(t *testing.T, h *harness, tok string) {
	r := h.call("GET", api("/providers"), tok, nil)
	var ps []apiv1.Provider
	h.expect(r, 200, &ps)
	if len(ps) != 2 || ps[0].Name != "lxd" || ps[0].Type != "external" || ps[0].Description == "" || ps[0].Version != "v1.2.3" {
		t.Errorf("providers = %+v", ps)
	}
}

// flowDeletes: pool delete (blocked by runners), repo delete.
func flowDeletes(t *testing.T, h *harness, tok, repoID, poolID string) {
	ctx := t.Context()
	h.expectError(h.call("DELETE", api("/pools/"+poolID), tok, nil), 400, "Bad Request", "pool has runners")
	h.expectError(h.call("DELETE", api("/repositories/"+repoID+"?keepWebhook=false"), tok, nil), 400, "Bad Request",
		"repository has pools defined; delete them first")
	for _, n := range []string{"acme-r1", "acme-r2"} {
		if err := h.store.DeleteInstance(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	r := h.call("DELETE", api("/pools/"+poolID), tok, nil)
	h.expect(r, 200, nil)
	if len(r.body) != 0 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("pool delete answered %q", r.body)
	}
	h.expectError(h.call("DELETE", api("/pools/"+poolID), tok, nil), 404, "Not Found", garrisonPoolMsg(t, h, poolID))
	h.expect(h.call("DELETE", api("/repositories/"+repoID+"?keepWebhook=false"), tok, nil), 200, nil)
	h.expectError(h.call("GET", api("/repositories/"+repoID), tok, nil), 404, "Not Found", garrisonEntityMsg(t, h, repoID))
}

func garrisonPoolMsg(t *testing.T, h *harness, id string) string {
	_, err := h.store.Pool(t.Context(), id)
	return garrison.MessageOf(err)
}

func garrisonEntityMsg(t *testing.T, h *harness, id string) string {
	_, err := h.store.Entity(t.Context(), id)
	return garrison.MessageOf(err)
}

func itoa(n uint) string {
	b, _ := json.Marshal(n)
	return string(b)
}

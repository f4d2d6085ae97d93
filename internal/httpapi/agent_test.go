package httpapi_test

import (
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// The details of the refusals (rest-api-2 §9.2); their status and the feature named are
// normative.
const (
	agentModeMsg   = "agent mode is not supported by this server (garm-agent is not available)"
	enableShellMsg = "enable_shell requires garm-agent, which this server does not support"
	agentToolsMsg  = "garm-agent tools are not supported by this server"
	agentConnMsg   = "garm-agent connections and remote shells are not supported by this server (garm-agent is not available)"
)

func controllerAgentMsg(key string) string {
	return key + " requires garm-agent, which this server does not support"
}

// TestAgentFeaturesRefused checks AM-1 to AM-5: requests that would turn on a garm-agent
// feature get a 400 naming it and change nothing; the neutral values are accepted.
func TestAgentFeaturesRefused(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	var org apiv1.Organization
	h.expect(h.call("POST", api("/organizations"), tok, map[string]any{"name": "acme",
		"credentials_name": "pat", "webhook_secret": "s"}), 200, &org)
	pools := api("/repositories/" + f.repoID + "/pools")
	newRepo := map[string]any{"owner": "o", "name": "agent", "credentials_name": "pat", "webhook_secret": "s"}
	newOrg := map[string]any{"name": "agent", "credentials_name": "pat", "webhook_secret": "s"}
	tests := []struct {
		name         string
		method, path string
		token        string
		body         any
		details      string // "" = accepted with 200
	}{
		// AM-1: entities.
		{"repo create agent mode", "POST", api("/repositories"), tok, with(newRepo, "agent_mode", true), agentModeMsg},
		{"org create agent mode", "POST", api("/organizations"), tok, with(newOrg, "agent_mode", true), agentModeMsg},
		{"enterprise create agent mode", "POST", api("/enterprises"), tok, with(newOrg, "agent_mode", true), agentModeMsg},
		{"repo update agent mode", "PUT", api("/repositories/" + f.repoID), tok, map[string]any{"agent_mode": true, "webhook_secret": "new"}, agentModeMsg},
		{"org update agent mode", "PUT", api("/organizations/" + org.ID), tok, map[string]any{"agent_mode": true}, agentModeMsg},
		{"repo create agent mode false", "POST", api("/repositories"), tok, with(newRepo, "agent_mode", false), ""},
		{"org update agent mode false", "PUT", api("/organizations/" + org.ID), tok, map[string]any{"agent_mode": false}, ""},

		// AM-2: pools, on create and on both update routes.
		{"pool create shell", "POST", pools, tok, with(validPool(), "enable_shell", true), enableShellMsg},
		{"pool update shell global", "PUT", api("/pools/" + f.poolID), tok, map[string]any{"enable_shell": true, "max_runners": 9}, enableShellMsg},
		{"pool update shell entity", "PUT", pools + "/" + f.poolID, tok, map[string]any{"enable_shell": true}, enableShellMsg},
		{"pool update shell null", "PUT", api("/pools/" + f.poolID), tok, []byte(`{"enable_shell":null,"priority":1}`), ""},
		{"pool update shell false", "PUT", pools + "/" + f.poolID, tok, map[string]any{"enable_shell": false}, ""},

		// AM-3: controller settings; neutral values and agent_url are accepted.
		{"controller tools sync", "PUT", api("/controller"), tok, map[string]any{"enable_agent_tools_sync": true}, controllerAgentMsg("enable_agent_tools_sync")},
		{"controller insecure agent", "PUT", api("/controller"), tok, map[string]any{"allow_insecure_garm_agent": true}, controllerAgentMsg("allow_insecure_garm_agent")},
		{"controller agent version", "PUT", api("/controller"), tok, map[string]any{"garm_agent_version": "v1.2.3"}, controllerAgentMsg("garm_agent_version")},
		{"controller releases url", "PUT", api("/controller"), tok, map[string]any{"garm_agent_releases_url": "https://releases.example.com/x"}, controllerAgentMsg("garm_agent_releases_url")},
		{"controller neutral agent values", "PUT", api("/controller"), tok, map[string]any{"enable_agent_tools_sync": false,
			"allow_insecure_garm_agent": false, "garm_agent_version": "latest", "garm_agent_releases_url": "",
			"agent_url": "https://agents.example.com/agent"}, ""},

		// AM-4: tools routes, with and without an admin token for the urls-checked group.
		{"tools list", "GET", api("/tools/garm-agent?upstream=true"), tok, nil, agentToolsMsg},
		{"tools upload", "POST", api("/tools/garm-agent"), tok, []byte("\x7fELF"), agentToolsMsg},
		{"tools releases", "GET", api("/tools/garm-agent/releases/"), tok, nil, agentToolsMsg},
		{"tools download", "GET", api("/tools/garm-agent/12/download"), tok, nil, agentToolsMsg},
		{"tools sync", "POST", api("/controller/tools/sync"), tok, nil, agentToolsMsg},

		// AM-5: the agent websocket (no token needed to learn it is absent) and the shell.
		{"remote shell", "GET", api("/ws/agent/garm-abc/shell"), tok, nil, agentConnMsg},
		{"agent websocket", "GET", "/agent", "", nil, agentConnMsg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call(tt.method, tt.path, tt.token, tt.body)
			if tt.details == "" {
				h.expect(r, 200, nil)
				return
			}
			h.expectError(r, 400, "Bad Request", tt.details)
		})
	}

	// Nothing refused was stored.
	ctx := t.Context()
	if e, err := h.store.Entity(ctx, f.repoID); err != nil || e.AgentMode || e.WebhookSecret != "s" {
		t.Errorf("repo after refused update = %+v, %v", e, err)
	}
	if p, err := h.store.Pool(ctx, f.poolID); err != nil || p.EnableShell || p.MaxRunners != 2 {
		t.Errorf("pool after refused updates = %+v, %v", p, err)
	}
	var repos []apiv1.Repository
	h.expect(h.call("GET", api("/repositories?name=agent"), tok, nil), 200, &repos)
	if len(repos) != 1 { // only the agent_mode:false create
		t.Errorf("repositories named agent = %d, want 1", len(repos))
	}
	var ci apiv1.ControllerInfo
	h.expect(h.call("GET", api("/controller"), tok, nil), 200, &ci)
	if ci.AgentURL != "https://agents.example.com/agent" {
		t.Errorf("agent_url = %q, want the one set", ci.AgentURL)
	}
}

// TestAgentFieldsReportedOff checks AM-6: whatever the store holds (a GARM import, an
// older garrison), responses say agent mode, shells and agent settings are off.
func TestAgentFieldsReportedOff(t *testing.T) {
	f := newFixture(t)
	h, tok, ctx := f.h, f.tok, t.Context()
	if _, err := h.store.UpdateEntity(ctx, f.repoID, func(e *garrison.Entity) error {
		e.AgentMode = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.UpdatePool(ctx, f.poolID, func(p *garrison.Pool) error {
		p.EnableShell = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.UpdateController(ctx, func(c *garrison.Controller) error {
		c.EnableAgentToolsSync, c.AllowInsecureAgent = true, true
		c.AgentVersion, c.AgentReleasesURL = "v0.1.0", "https://releases.example.com/x"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.CreateInstance(ctx, garrison.Instance{Name: "garm-shell", PoolID: f.poolID,
		ProviderName: "lxd", OSType: "linux", OSArch: "amd64", Status: garrison.InstanceRunning,
		Heartbeat: time.Now()}); err != nil {
		t.Fatal(err)
	}

	var repo apiv1.Repository
	h.expect(h.call("GET", api("/repositories/"+f.repoID), tok, nil), 200, &repo)
	var repos []apiv1.Repository
	h.expect(h.call("GET", api("/repositories"), tok, nil), 200, &repos)
	if repo.AgentMode || len(repos) != 1 || repos[0].AgentMode {
		t.Errorf("agent_mode reported on: %v / %+v", repo.AgentMode, repos)
	}
	var pool apiv1.Pool
	h.expect(h.call("GET", api("/pools/"+f.poolID), tok, nil), 200, &pool)
	var pools []apiv1.Pool
	h.expect(h.call("GET", api("/pools"), tok, nil), 200, &pools)
	if pool.EnableShell || len(pools) != 1 || pools[0].EnableShell {
		t.Errorf("enable_shell reported on: %v / %+v", pool.EnableShell, pools)
	}
	var in apiv1.Instance
	h.expect(h.call("GET", api("/instances/garm-shell"), tok, nil), 200, &in)
	if in.Capabilities.HasShell || !in.Heartbeat.IsZero() {
		t.Errorf("instance capabilities %+v, heartbeat %v; want no shell, zero heartbeat", in.Capabilities, in.Heartbeat)
	}
	if len(pool.Instances) != 1 || pool.Instances[0].Capabilities.HasShell {
		t.Errorf("pool instances = %+v", pool.Instances)
	}
	var ci apiv1.ControllerInfo
	h.expect(h.call("GET", api("/controller-info"), tok, nil), 200, &ci)
	if ci.EnableAgentToolsSync || ci.AllowInsecureGARMAgent || ci.GARMAgentVersion != "" ||
		ci.GARMAgentReleasesURL != garrison.DefaultAgentReleasesURL {
		t.Errorf("controller agent settings = %+v", ci)
	}
}

// TestUnknownTemplate checks T-4: a template id that does not exist is a 404 naming it,
// on pool create and on both update routes.
func TestUnknownTemplate(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	pools := api("/repositories/" + f.repoID + "/pools")
	tests := []struct {
		name, method, path string
		body               any
	}{
		{"create", "POST", pools, with(validPool(), "template_id", 7)},
		{"update global", "PUT", api("/pools/" + f.poolID), map[string]any{"template_id": 7}},
		{"update entity", "PUT", pools + "/" + f.poolID, map[string]any{"template_id": 7, "max_runners": 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.expectError(h.call(tt.method, tt.path, tok, tt.body), 404, "Not Found", "template 7 not found")
		})
	}
	h.expectError(h.call("POST", pools, tok, with(validPool(), "proxy_id", 4)), 400, "Bad Request", "proxy with ID 4 does not exist")
	h.expect(h.call("POST", pools, tok, with(validPool(), "template_id", 0, "tags", []string{"b"})), 200, nil)
}

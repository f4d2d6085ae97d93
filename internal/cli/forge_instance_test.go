package cli

import (
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

const fiID = "66666666-6666-6666-6666-666666666666"

var testFI = apiv1.ForgeInstance{ID: fiID, CredentialsName: "gcreds",
	Endpoint: apiv1.ForgeEndpoint{Name: "gitea.local", EndpointType: "gitea"}, PoolBalancerType: "roundrobin"}

// forgeInstanceReplies answer the forge-instance routes.
func forgeInstanceReplies() map[string]reply {
	r := map[string]reply{}
	for k, v := range commonReplies {
		r[k] = v
	}
	for k, v := range map[string]reply{
		"POST /forge-instances":                      {body: testFI},
		"GET /forge-instances":                       {body: []apiv1.ForgeInstance{testFI}},
		"GET /forge-instances/" + fiID:               {body: testFI},
		"PUT /forge-instances/" + fiID:               {body: testFI},
		"POST /forge-instances/" + fiID + "/webhook": {body: apiv1.HookInfo{ID: 44, URL: "http://ctl/webhooks/x"}},
		"GET /forge-instances/" + fiID + "/webhook":  {body: apiv1.HookInfo{ID: 44, URL: "http://ctl/webhooks/x"}},
		"POST /forge-instances/" + fiID + "/pools":   {body: testPool},
		"GET /forge-instances/" + fiID + "/pools":    {body: []apiv1.Pool{testPool}},
	} {
		r[k] = v
	}
	return r
}

// TestForgeInstanceFlows checks the requests of the forge-instance commands
// (rest-api-2 §4.6): names resolve through ?endpoint=, UUIDs are used as they are.
func TestForgeInstanceFlows(t *testing.T) {
	flows := []flow{
		{name: "add with webhook", args: []string{"forge-instance", "add", "--endpoint", "gitea.local", "--credentials", "gcreds",
			"--random-webhook-secret", "--install-webhook"},
			calls: []want{
				post("/forge-instances", "credentials_name", "endpoint_name", "forge_type", "pool_balancer_type", "webhook_secret").
					with("endpoint_name", `"gitea.local"`, "forge_type", `"gitea"`, "credentials_name", `"gcreds"`),
				post("/forge-instances/"+fiID+"/webhook", "insecure_ssl", "webhook_endpoint_type").with("webhook_endpoint_type", `"direct"`),
				get("/forge-instances/" + fiID)},
			stdout: []string{fiID, "gitea.local", "gcreds"}},
		{name: "list", args: []string{"forge-instance", "list", "--endpoint", "gitea.local"},
			calls: []want{getq("/forge-instances", "endpoint=gitea.local")}, stdout: []string{fiID, "gitea.local"}},
		{name: "show by endpoint name", args: []string{"forge-instance", "show", "gitea.local"},
			calls: []want{getq("/forge-instances", "endpoint=gitea.local"), get("/forge-instances/" + fiID)}},
		{name: "update", args: []string{"fi", "update", fiID, "--pool-balancer-type", "pack"},
			calls: []want{put("/forge-instances/"+fiID, "pool_balancer_type").with("pool_balancer_type", `"pack"`)}},
		{name: "delete keeping the hook", args: []string{"forge-instance", "delete", "gitea.local", "--keep-webhook"},
			calls: []want{getq("/forge-instances", "endpoint=gitea.local"), del("/forge-instances/"+fiID, "keepWebhook=true")}},
		{name: "webhook show", args: []string{"forge-instance", "webhook", "show", fiID},
			calls: []want{get("/forge-instances/" + fiID + "/webhook")}, stdout: []string{"44"}},
		{name: "webhook uninstall", args: []string{"forge-instance", "webhook", "uninstall", fiID},
			calls: []want{del("/forge-instances/"+fiID+"/webhook", "")}},
		{name: "pool list of a forge instance", args: []string{"pool", "list", "--forge-instance", "gitea.local"},
			calls: []want{getq("/forge-instances", "endpoint=gitea.local"), get("/forge-instances/" + fiID + "/pools")}},
	}
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			srv := newFakeServer(t, forgeInstanceReplies())
			e := newEnv(t).withProfile(t, srv)
			stdout, stderr, err := e.run(t, f.args...)
			if err != nil {
				t.Fatalf("%v failed: %v\nstderr: %s", f.args, err, stderr)
			}
			checkCalls(t, srv.recorded(), f.calls)
			for _, s := range f.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("output lacks %q:\n%s", s, stdout)
				}
			}
		})
	}
}

// TestForgeInstanceUnknownName checks that a name no forge instance has is an error
// that sends nothing more.
func TestForgeInstanceUnknownName(t *testing.T) {
	srv := newFakeServer(t, map[string]reply{"GET /forge-instances": {body: []apiv1.ForgeInstance{}}})
	e := newEnv(t).withProfile(t, srv)
	_, _, err := e.run(t, "forge-instance", "delete", "nope")
	if err == nil || !strings.Contains(err.Error(), "forge instance nope not found") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.recorded()); n != 1 {
		t.Fatalf("%d requests, want only the lookup", n)
	}
}

package cli

import (
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TestProxyFlows checks the requests of the proxy commands (rest-api-2 §6.5).
func TestProxyFlows(t *testing.T) {
	px := apiv1.Proxy{ID: 8, Name: "corp-proxy", HTTPProxy: "http://p:3128", Username: "bob"}
	replies := map[string]reply{
		"GET /proxies":    {body: []apiv1.Proxy{px}},
		"POST /proxies":   {body: px},
		"GET /proxies/8":  {body: px},
		"PUT /proxies/8":  {body: px},
		"GET /proxies/12": {body: px},
	}
	flows := []flow{
		{name: "create", args: []string{"proxy", "create", "--name", "corp-proxy", "--http-proxy", "http://p:3128", "--username", "bob", "--password", "pw"},
			calls:  []want{post("/proxies", "http_proxy", "name", "password", "username").with("password", `"pw"`)},
			stdout: []string{"corp-proxy", "http://p:3128"}},
		{name: "list", args: []string{"proxy", "list"}, calls: []want{get("/proxies")}, stdout: []string{"corp-proxy", "bob"}},
		{name: "show by id", args: []string{"proxy", "show", "12"}, calls: []want{get("/proxies/12")}},
		{name: "show by name", args: []string{"proxy", "show", "CORP-proxy"}, calls: []want{get("/proxies"), get("/proxies/8")}},
		{name: "update sends only given flags, empty clears", args: []string{"proxy", "update", "corp-proxy", "--no-proxy", "", "--https-proxy", "https://p"},
			calls: []want{get("/proxies"), put("/proxies/8", "https_proxy", "no_proxy").with("no_proxy", `""`)}},
		{name: "delete", args: []string{"proxy", "delete", "8"}, calls: []want{del("/proxies/8", "")}},
	}
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			srv := newFakeServer(t, replies)
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
	srv := newFakeServer(t, replies)
	e := newEnv(t).withProfile(t, srv)
	if _, _, err := e.run(t, "proxy", "delete", "nope"); err == nil || !strings.Contains(err.Error(), `proxy "nope" not found`) {
		t.Fatalf("deleting an unknown name: %v", err)
	}
}

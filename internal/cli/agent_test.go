package cli

import (
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TestAgentFlagsRefused: a flag that would turn on a garm-agent feature is refused before
// anything is sent, with an error naming the flag and garm-agent.
func TestAgentFlagsRefused(t *testing.T) {
	entity := []string{"--name", "x", "--credentials", "creds", "--webhook-secret", "s"}
	pool := []string{"--provider-name", "lxd", "--image", "i", "--flavor", "f", "--tags", "a"}
	tests := []struct {
		flag string
		args []string
	}{
		{"--agent-mode", append([]string{"repo", "add", "--owner", "o", "--agent-mode"}, entity...)},
		{"--agent-mode", append([]string{"org", "add", "--agent-mode=true"}, entity...)},
		{"--agent-mode", append([]string{"enterprise", "add", "--agent-mode"}, entity...)},
		{"--agent-mode", []string{"repo", "update", repoID, "--agent-mode"}},
		{"--agent-mode", []string{"org", "update", "acme", "--agent-mode"}},
		{"--agent-mode", []string{"enterprise", "update", entID, "--agent-mode", "--pool-balancer-type", "pack"}},
		{"--enable-shell", append([]string{"pool", "add", "--repo", repoID, "--enable-shell"}, pool...)},
		{"--enable-shell", []string{"pool", "update", poolID, "--enable-shell", "--max-runners", "3"}},
		{"--enable-agent-tools-sync", []string{"controller", "update", "--enable-agent-tools-sync"}},
		{"--allow-insecure-garm-agent", []string{"controller", "update", "--allow-insecure-garm-agent"}},
		{"--garm-agent-version", []string{"controller", "update", "--garm-agent-version", "v1.2.3"}},
		{"--garm-agent-releases-url", []string{"controller", "update", "--garm-agent-releases-url", "https://example.com/r"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " ")+" "+tt.flag, func(t *testing.T) {
			srv := newFakeServer(t, commonReplies)
			e := newEnv(t).withProfile(t, srv)
			_, _, err := e.run(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.flag+"=") || !strings.Contains(err.Error(), "garm-agent") {
				t.Errorf("err = %v, want a refusal naming %s and garm-agent", err, tt.flag)
			}
			if calls := srv.recorded(); len(calls) != 0 {
				t.Errorf("%d requests sent, want none: %+v", len(calls), calls)
			}
		})
	}
	t.Run("help says unsupported", func(t *testing.T) {
		stdout, _, err := newEnv(t).run(t, "pool", "add", "--help")
		if err != nil || !strings.Contains(stdout, "not supported: needs garm-agent") {
			t.Errorf("pool add --help (err %v) does not say --enable-shell is unsupported:\n%s", err, stdout)
		}
	})
}

// TestTemplateNotFound: a runner install template (or proxy) that does not exist is named
// in the error, whether the server lacks the list route, lists no match or refuses an id.
func TestTemplateNotFound(t *testing.T) {
	notFound := reply{status: 404, body: apiv1.APIError{Error: "Not found", Details: "Resource not found"}}
	add := []string{"pool", "add", "--repo", repoID, "--provider-name", "lxd", "--image", "i", "--flavor", "f", "--tags", "a"}
	tests := []struct {
		name    string
		replies map[string]reply
		args    []string
		want    string
		posted  bool
	}{
		{"no template route", map[string]reply{"GET /templates": notFound},
			append(add, "--runner-install-template", "my-tpl"), `runner install template "my-tpl" not found: the server has no runner install templates`, false},
		{"no match", map[string]reply{"GET /templates": {body: []map[string]any{{"id": 4, "name": "other"}}}},
			append(add, "--runner-install-template", "my-tpl"), `runner install template "my-tpl" not found`, false},
		{"unknown id", map[string]reply{"POST /repositories/" + repoID + "/pools": {status: 404, body: apiv1.APIError{Error: "Not Found", Details: "template 7 not found"}}},
			append(add, "--runner-install-template", "7"), "template 7 not found", true},
		{"update: no template route", map[string]reply{"GET /templates": notFound},
			[]string{"pool", "update", poolID, "--runner-install-template", "my-tpl"}, `runner install template "my-tpl" not found: the server has no runner install templates`, false},
		{"no proxy route", map[string]reply{"GET /proxies": notFound},
			append(add, "--proxy", "corp"), `proxy "corp" not found: the server has no proxies`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.replies)
			e := newEnv(t).withProfile(t, srv)
			_, stderr, err := e.run(t, tt.args...)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if strings.Contains(stderr, "Resource not found") {
				t.Errorf("stderr shows the bare 404: %q", stderr)
			}
			posted := false
			for _, c := range srv.recorded() {
				posted = posted || c.Method == "POST" || c.Method == "PUT"
			}
			if posted != tt.posted {
				t.Errorf("pool sent to the server: %v, want %v", posted, tt.posted)
			}
		})
	}
}

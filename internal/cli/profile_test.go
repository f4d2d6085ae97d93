package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

func authReplies() map[string]reply {
	return map[string]reply{
		"POST /first-run":  {body: apiv1.User{ID: "u1", Username: "admin", IsAdmin: true, Enabled: true}},
		"POST /auth/login": {body: apiv1.JWTResponse{Token: "new-token"}},
		"PUT /controller":  {body: testCtl},
	}
}

func readProfiles(t *testing.T, dir string) profileFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ProfilesFile))
	if err != nil {
		t.Fatal(err)
	}
	var pf profileFile
	if err := json.Unmarshal(data, &pf); err != nil {
		t.Fatal(err)
	}
	return pf
}

func checkModes(t *testing.T, dir string) {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, ProfilesFile))
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("profiles file mode = %o, want 600", m)
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := di.Mode().Perm(); m != 0o700 {
		t.Errorf("config dir mode = %o, want 700", m)
	}
}

func TestInit(t *testing.T) {
	tests := []struct {
		name       string
		extra      []string
		controller want
	}{
		{
			name: "default URLs",
			controller: put("/controller", "agent_url", "callback_url", "metadata_url", "webhook_url").with(
				"metadata_url", `"@URL@/api/v1/metadata"`, "callback_url", `"@URL@/api/v1/callbacks"`,
				"webhook_url", `"@URL@/webhooks"`, "agent_url", `"@URL@/agent"`),
		},
		{
			name:  "explicit URLs and CA",
			extra: []string{"--metadata-url", "https://m/meta", "--callback-url", "https://m/cb", "--webhook-url", "https://m/wh", "--agent-url", "https://m/ag", "--ca-bundle", "@CA@"},
			controller: put("/controller", "agent_url", "ca_cert_bundle", "callback_url", "metadata_url", "webhook_url").with(
				"metadata_url", `"https://m/meta"`, "callback_url", `"https://m/cb"`, "webhook_url", `"https://m/wh"`, "agent_url", `"https://m/ag"`,
				"ca_cert_bundle", b64(fakePEM)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, authReplies())
			e := newEnv(t)
			e.dir = filepath.Join(e.dir, "sub", "garrison") // created by init
			e.hc = srv.srv.Client()
			url := srv.srv.URL
			args := append([]string{"init", "--name", "local", "--url", url + "/", "--username", "admin", "--email", "a@example.com", "--full-name", "Ad Min", "--password", "pw"}, tt.extra...)
			stdout, stderr, err := e.run(t, writeFixtures(t, args)...)
			if err != nil {
				t.Fatalf("init: %v\n%s", err, stderr)
			}
			calls := srv.recorded()
			if len(calls) != 3 {
				t.Fatalf("got %d calls, want 3", len(calls))
			}
			for k, v := range tt.controller.values {
				tt.controller.values[k] = strings.ReplaceAll(v, "@URL@", url)
			}
			wants := []want{
				post("/first-run", "email", "full_name", "password", "username").with("email", `"a@example.com"`, "username", `"admin"`, "full_name", `"Ad Min"`, "password", `"pw"`),
				post("/auth/login", "password", "username").with("username", `"admin"`, "password", `"pw"`),
				tt.controller,
			}
			for i := range 2 {
				// The empty token: Go's HTTP client trims the trailing space on the wire.
				if got := calls[i].Header.Get("Authorization"); strings.TrimSpace(got) != "Bearer" {
					t.Errorf("call %d Authorization = %q, want an empty bearer token", i, got)
				}
				calls[i].Header.Set("Authorization", "Bearer tok") // for checkCalls
			}
			if got := calls[2].Header.Get("Authorization"); got != "Bearer new-token" {
				t.Errorf("PUT /controller Authorization = %q, want the new token", got)
			}
			calls[2].Header.Set("Authorization", "Bearer tok")
			checkCalls(t, calls, wants)
			if !strings.Contains(stdout, testCtl.ControllerID) {
				t.Errorf("init output lacks the controller info:\n%s", stdout)
			}
			pf := readProfiles(t, e.dir)
			if pf.Active != "local" || len(pf.Profiles) != 1 || pf.Profiles[0] != (Profile{Name: "local", URL: url, Username: "admin", Token: "new-token"}) {
				t.Errorf("profiles = %+v", pf)
			}
			checkModes(t, e.dir)
		})
	}
}

func TestInitPasswordFromEnv(t *testing.T) {
	srv := newFakeServer(t, authReplies())
	e := newEnv(t)
	e.hc = srv.srv.Client()
	e.vars[EnvPassword] = "from-env"
	if _, stderr, err := e.run(t, "init", "--name", "n", "--url", srv.srv.URL, "--username", "admin", "--email", "a@b.c"); err != nil {
		t.Fatalf("init: %v\n%s", err, stderr)
	}
	if got := string(srv.recorded()[0].Body["password"]); got != `"from-env"` {
		t.Errorf("password = %s, want the env value", got)
	}
}

func TestInitNoPassword(t *testing.T) {
	srv := newFakeServer(t, authReplies())
	e := newEnv(t)
	e.hc = srv.srv.Client()
	_, _, err := e.run(t, "init", "--name", "n", "--url", srv.srv.URL, "--username", "admin", "--email", "a@b.c")
	if !errors.Is(err, ErrNoPassword) {
		t.Errorf("err = %v, want ErrNoPassword", err)
	}
	if n := len(srv.recorded()); n != 0 {
		t.Errorf("%d requests sent without a password", n)
	}
}

func TestInitAlreadyInitialized(t *testing.T) {
	r := authReplies()
	r["POST /first-run"] = reply{status: 409, body: apiv1.APIError{Error: "Conflict", Details: "already initialized"}}
	srv := newFakeServer(t, r)
	e := newEnv(t)
	e.hc = srv.srv.Client()
	_, stderr, err := e.run(t, "init", "--name", "n", "--url", srv.srv.URL, "--username", "admin", "--email", "a@b.c", "--password", "pw")
	if !apiclient.IsConflict(err) {
		t.Fatalf("err = %v, want a 409 API error", err)
	}
	if !strings.Contains(stderr, "Error: already initialized") {
		t.Errorf("stderr = %q", stderr)
	}
	if n := len(srv.recorded()); n != 1 {
		t.Errorf("%d requests after a failed first-run, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ProfilesFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("profile saved after a failed init (stat: %v)", err)
	}
}

func TestProfileLifecycle(t *testing.T) {
	srv := newFakeServer(t, authReplies())
	e := newEnv(t)
	e.hc = srv.srv.Client()
	url := srv.srv.URL

	// No profile yet.
	_, stderr, err := e.run(t, "repo", "list")
	if !errors.Is(err, ErrNoProfile) {
		t.Fatalf("repo list without profile: err = %v", err)
	}
	if !strings.Contains(stderr, "Error: no profile configured; run `garrison init` or `garrison profile add`") {
		t.Errorf("stderr = %q", stderr)
	}

	// profile add logs in with an empty token and becomes active.
	for _, name := range []string{"one", "two"} {
		if _, stderr, err := e.run(t, "profile", "add", "--name", name, "--url", url, "--username", "admin", "--password", "pw"); err != nil {
			t.Fatalf("profile add %s: %v\n%s", name, err, stderr)
		}
	}
	calls := srv.recorded()
	if len(calls) != 2 {
		t.Fatalf("got %d calls, want 2", len(calls))
	}
	for _, c := range calls {
		if c.Method != "POST" || c.Path != "/auth/login" || strings.Join(keys(c.Body), ",") != "password,username" || strings.TrimSpace(c.Header.Get("Authorization")) != "Bearer" {
			t.Errorf("profile add sent %s %s %v auth=%q", c.Method, c.Path, keys(c.Body), c.Header.Get("Authorization"))
		}
	}
	checkModes(t, e.dir)
	if pf := readProfiles(t, e.dir); pf.Active != "two" || len(pf.Profiles) != 2 {
		t.Fatalf("profiles = %+v", pf)
	}
	if _, _, err := e.run(t, "profile", "add", "--name", "one", "--url", url, "--username", "admin", "--password", "pw"); err == nil {
		t.Error("adding a duplicate profile succeeded")
	}

	// list shows both, never the token.
	out, _, err := e.run(t, "profile", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"NAME", "URL", "USERNAME", "ACTIVE", "one", "two", url} {
		if !strings.Contains(out, s) {
			t.Errorf("profile list lacks %q:\n%s", s, out)
		}
	}
	out, _, _ = e.run(t, "profile", "list", "--format", "json")
	if strings.Contains(out, "new-token") || !strings.Contains(out, `"active": true`) {
		t.Errorf("profile list json = %s", out)
	}

	// switch, then login stores the new token, sending the old one.
	if _, _, err := e.run(t, "profile", "switch", "one"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.run(t, "profile", "switch", "nope"); err == nil || !strings.Contains(err.Error(), `profile "nope" not found`) {
		t.Errorf("switch to unknown profile: %v", err)
	}
	s := &app{opts: e.options()}
	st, _ := s.store()
	p, _ := st.profile("one")
	p.Token = "old-token"
	st.put(p)
	if err := st.save(); err != nil {
		t.Fatal(err)
	}
	e.vars[EnvPassword] = "pw2"
	if _, stderr, err := e.run(t, "profile", "login"); err != nil {
		t.Fatalf("profile login: %v\n%s", err, stderr)
	}
	last := srv.recorded()[len(srv.recorded())-1]
	if last.Path != "/auth/login" || last.Header.Get("Authorization") != "Bearer old-token" || string(last.Body["password"]) != `"pw2"` || string(last.Body["username"]) != `"admin"` {
		t.Errorf("profile login sent %s auth=%q body=%s", last.Path, last.Header.Get("Authorization"), last.RawBody)
	}
	pf := readProfiles(t, e.dir)
	if pf.Active != "one" || pf.Profiles[0].Token != "new-token" {
		t.Errorf("after login: %+v", pf)
	}

	// --profile selects a profile other than the active one.
	srv2 := newFakeServer(t, map[string]reply{"GET /providers": {body: []apiv1.Provider{{Name: "other"}}}})
	st, _ = s.store()
	st.put(Profile{Name: "three", URL: srv2.srv.URL, Username: "admin", Token: "t3"})
	if err := st.save(); err != nil {
		t.Fatal(err)
	}
	e.hc = nil // two servers: use the default client
	out, stderr, err = e.run(t, "provider", "list", "--profile", "three")
	if err != nil || !strings.Contains(out, "other") || srv2.recorded()[0].Header.Get("Authorization") != "Bearer t3" {
		t.Errorf("provider list --profile three: %v %s %s", err, out, stderr)
	}
	if _, _, err := e.run(t, "provider", "list", "--profile", "four"); err == nil || !strings.Contains(err.Error(), `profile "four" not found`) {
		t.Errorf("unknown --profile: %v", err)
	}

	// delete the active profile: another one becomes active.
	if _, _, err := e.run(t, "profile", "delete", "one"); err != nil {
		t.Fatal(err)
	}
	if pf := readProfiles(t, e.dir); pf.Active != "two" || len(pf.Profiles) != 2 {
		t.Errorf("after delete: %+v", pf)
	}
	checkModes(t, e.dir)
}

func TestConfigDir(t *testing.T) {
	tests := []struct {
		name string
		opts string
		vars map[string]string
		want string
	}{
		{"option wins", "/o", map[string]string{EnvConfigDir: "/e", "XDG_CONFIG_HOME": "/x"}, "/o"},
		{"env", "", map[string]string{EnvConfigDir: "/e", "XDG_CONFIG_HOME": "/x"}, "/e"},
		{"xdg", "", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/garrison"},
		{"home", "", map[string]string{"HOME": "/h"}, "/h/.config/garrison"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &app{opts: Options{ConfigDir: tt.opts, Getenv: func(k string) string { return tt.vars[k] }}}
			got, err := a.configDir()
			if err != nil || got != tt.want {
				t.Errorf("configDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestErrorRendering checks that API errors print as "Error: <details>" (or
// the error text when details are empty) and keep their status code.
func TestErrorRendering(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   any
		want   string
	}{
		{"409", 409, apiv1.APIError{Error: "Conflict", Details: "repository octo/hello already exists"}, "Error: repository octo/hello already exists\n"},
		{"404", 404, apiv1.APIError{Error: "Not Found", Details: "repository not found"}, "Error: repository not found\n"},
		{"400", 400, apiv1.APIError{Error: "Bad Request", Details: "missing secret"}, "Error: missing secret\n"},
		{"401 empty details", 401, apiv1.APIError{Error: "Not Authorized", Details: ""}, "Error: Not Authorized\n"},
		{"500 empty body", 500, "", "Error: Internal Server Error\n"},
		{"text/plain", 401, "Unauthorized", "Error: Unauthorized\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, map[string]reply{"GET /repositories/" + repoID: {status: tt.status, body: tt.body}})
			e := newEnv(t).withProfile(t, srv)
			stdout, stderr, err := e.run(t, "repo", "show", repoID)
			var apiErr *apiclient.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
				t.Fatalf("err = %#v, want *apiclient.Error with status %d", err, tt.status)
			}
			if stderr != tt.want {
				t.Errorf("stderr = %q, want %q", stderr, tt.want)
			}
			if strings.Contains(stdout, "Usage") {
				t.Errorf("usage printed for an API error:\n%s", stdout)
			}
		})
	}
}

func TestDebugNeverLogsToken(t *testing.T) {
	srv := newFakeServer(t, commonReplies)
	e := newEnv(t).withProfile(t, srv)
	_, stderr, err := e.run(t, "repo", "list", "--owner", "octo", "--debug")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "GET "+srv.srv.URL+"/api/v1/repositories?owner=octo -> 200") {
		t.Errorf("debug log = %q", stderr)
	}
	if strings.Contains(stderr, "tok") {
		t.Errorf("debug log contains the token: %q", stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	srv := newFakeServer(t, commonReplies)
	e := newEnv(t).withProfile(t, srv)
	tests := [][]string{
		{"repo", "add", "--owner", "o", "--name", "n", "--credentials", "c"},                                                     // no secret
		{"repo", "add", "--owner", "o", "--name", "n", "--credentials", "c", "--webhook-secret", "s", "--random-webhook-secret"}, // both
		{"pool", "add", "--provider-name", "p", "--image", "i", "--flavor", "f", "--tags", "a"},                                  // no owner
		{"pool", "add", "--repo", repoID, "--provider-name", "p", "--image", "i", "--flavor", "f", "--tags", "a", "--extra-specs", "{"},
		{"pool", "update", poolID},
		{"pool", "update", poolID, "--proxy", "1", "--clear-proxy"},
		{"repo", "show", "not-a-repo"},
		{"runner", "list", "not-a-uuid"},
		{"controller", "update"},
		{"repo", "list", "--format", "yaml"},
		{"github", "credentials", "add", "--name", "n", "--description", "d", "--endpoint", "e", "--auth-type", "app", "--app-id", "1"},
		{"gitea", "credentials", "add", "--name", "n", "--description", "d", "--endpoint", "e", "--auth-type", "app"},
	}
	for _, args := range tests {
		if _, _, err := e.run(t, args...); err == nil {
			t.Errorf("%v succeeded", args)
		}
	}
	if n := len(srv.recorded()); n != 0 {
		t.Errorf("%d requests sent for invalid command lines: %+v", n, srv.recorded())
	}
}

func TestResolveErrors(t *testing.T) {
	two := []apiv1.Repository{testRepo, testRepo}
	tests := []struct {
		name    string
		replies map[string]reply
		want    string
	}{
		{"none", map[string]reply{"GET /repositories": {body: []apiv1.Repository{}}}, "repository octo/hello not found"},
		{"several", map[string]reply{"GET /repositories": {body: two}}, "2 repositorys match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.replies)
			e := newEnv(t).withProfile(t, srv)
			_, _, err := e.run(t, "repo", "show", "octo/hello")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestAttach shows how cmd/garrison adds a subcommand that talks to the
// server, and that Options.Stdout is honoured.
func TestAttach(t *testing.T) {
	srv := newFakeServer(t, commonReplies)
	e := newEnv(t).withProfile(t, srv)
	var out strings.Builder
	opts := e.options()
	opts.Stdout = &out
	cmds := Commands(opts)
	prov := Find(cmds, "provider")
	if prov == nil || Find(cmds, "github", "endpoint", "list") == nil || Find(cmds, "repo", "webhook") == nil || Find(cmds, "nope") != nil {
		t.Fatal("Find does not find the groups")
	}
	prov.AddCommand(&cobra.Command{
		Use: "check",
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := NewClient(cmd, opts)
			if err != nil {
				return err
			}
			ps, err := c.ListProviders(cmd.Context())
			if err != nil {
				return err
			}
			out.WriteString("checked " + ps[0].Name + "\n")
			return nil
		},
	})
	root := &cobra.Command{Use: "garrison"}
	root.AddCommand(cmds...)
	root.SetArgs([]string{"provider", "check", "--debug"})
	var errOut strings.Builder
	root.SetErr(&errOut)
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	root.SetArgs([]string{"provider", "list"})
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "checked lxd") || !strings.Contains(out.String(), "external") {
		t.Errorf("output = %q", out.String())
	}
	if !strings.Contains(errOut.String(), "/api/v1/providers -> 200") {
		t.Errorf("--debug not inherited by the attached command: %q", errOut.String())
	}
}

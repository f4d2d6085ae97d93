package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/forgesim"
)

// complete runs cobra's hidden __complete command, as the shell scripts do, and returns the
// candidates (values only) and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out := runCLI(t, append([]string{"__complete"}, args...)...)
	var vals []string
	directive := ""
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		v, _, _ := strings.Cut(line, "\t")
		vals = append(vals, v)
	}
	return vals, directive
}

// TestCompletion completes ids and values from a real server: pool ids, entity names,
// credentials, endpoints, providers and fixed flag values.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GARRISON_CONFIG_DIR", filepath.Join(dir, "client"))
	cfg := writeSimConfig(t, dir)
	srv := startServer(t, freeAddr(t), "--data-dir", filepath.Join(dir, "data"), "--config", cfg)
	runCLI(t, "init", "--name", "local", "--url", srv.url, "--username", "admin",
		"--email", "admin@example.com", "--password", testPassword)
	sim := forgesim.New(forgesim.Options{})
	simURL, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sim.AddToken("ghp_completionsecret")
	runCLI(t, "github", "endpoint", "create", "--name", "sim", "--description", "forge simulator", "--base-url", simURL,
		"--api-base-url", simURL+"/api/v3/", "--upload-url", simURL+"/api/uploads/")
	runCLI(t, "github", "credentials", "add", "--name", "pat1", "--description", "bot", "--endpoint", "sim", "--auth-type", "pat",
		"--pat-oauth-token", "ghp_completionsecret")
	for _, name := range []string{"app", "api"} {
		runCLI(t, "repo", "add", "--owner", "acme", "--name", name, "--credentials", "pat1", "--webhook-secret", "completion-webhook-secret")
	}
	runCLI(t, "org", "add", "--name", "acme", "--credentials", "pat1", "--webhook-secret", "completion-webhook-secret")
	runCLI(t, "pool", "add", "--repo", "acme/app", "--provider-name", "lxd", "--image", "ubuntu", "--flavor", "small",
		"--tags", "linux", "--min-idle-runners", "0", "--max-runners", "2")
	pools := listPools(t)

	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"pool", "show", ""}, []string{pools[0].ID}},
		{[]string{"pool", "delete", pools[0].ID[:4]}, []string{pools[0].ID}},
		{[]string{"runner", "list", ""}, []string{pools[0].ID}},
		{[]string{"repo", "show", ""}, []string{"acme/api", "acme/app"}},
		{[]string{"repo", "show", "acme/app"}, []string{"acme/app"}},
		{[]string{"org", "delete", ""}, []string{"acme"}},
		{[]string{"pool", "list", "--repo", "acme/a"}, []string{"acme/api", "acme/app"}},
		{[]string{"pool", "add", "--provider-name", ""}, []string{"lxd"}},
		{[]string{"pool", "add", "--os-arch", "arm"}, []string{"arm", "arm64"}},
		{[]string{"repo", "add", "--credentials", ""}, []string{"pat1"}},
		{[]string{"github", "credentials", "show", ""}, []string{"pat1"}},
		{[]string{"github", "endpoint", "show", "s"}, []string{"sim"}},
		{[]string{"pool", "list", "--format", ""}, []string{"json", "table"}},
		{[]string{"profile", "switch", ""}, []string{"local"}},
		{[]string{"pool", "show", pools[0].ID, ""}, nil}, // one argument only
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, directive := complete(t, tt.args...)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("candidates %q, want %q", got, tt.want)
			}
			if directive != fmt.Sprintf(":%d", 4) { // ShellCompDirectiveNoFileComp
				t.Errorf("directive %q, want :4 (no file names)", directive)
			}
		})
	}

	// A pool's candidate describes it; an unreachable server completes with nothing and
	// says it failed, without file names.
	if out := runCLI(t, "__complete", "pool", "show", ""); !strings.Contains(out, pools[0].ID+"\tacme/app, lxd, small, linux") {
		t.Errorf("pool candidate lacks its description:\n%s", out)
	}
	srv.stop()
	if got, directive := complete(t, "pool", "show", ""); len(got) != 0 || directive != ":5" {
		t.Errorf("with the server down: %q %s, want nothing and :5 (error, no files)", got, directive)
	}
}

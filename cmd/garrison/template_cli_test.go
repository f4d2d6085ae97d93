package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// TestTemplateCLI drives `garrison template ...` and `pool add/update
// --runner-install-template` against a real server.
func TestTemplateCLI(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GARRISON_CONFIG_DIR", filepath.Join(dir, "client"))
	srv := startServer(t, freeAddr(t), "--data-dir", filepath.Join(dir, "data"), "--config", writeSimConfig(t, dir))
	runCLI(t, "init", "--name", "local", "--url", srv.url, "--username", "admin",
		"--email", "admin@example.com", "--password", testPassword)

	out := runCLI(t, "template", "list")
	for _, n := range []string{"github_windows", "github_linux", "gitea_linux", "gitea_windows"} {
		if !strings.Contains(out, n) {
			t.Fatalf("template list lacks %s:\n%s", n, out)
		}
	}
	file := filepath.Join(dir, "mine.sh")
	if err := os.WriteFile(file, []byte("#!/bin/bash\necho {{ .RunnerName }}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "template", "create", "--name", "mine", "--path", file, "--forge-type", "github", "--os-type", "linux", "--description", "my own")
	var shown apiv1.Template
	decode(t, runCLI(t, "template", "show", "mine", "--format", "json"), &shown)
	if string(shown.Data) != "#!/bin/bash\necho {{ .RunnerName }}\n" || shown.Owner != "admin" || shown.Description != "my own" {
		t.Fatalf("shown %+v", shown)
	}

	// A bad template is refused when saved, with the line and the reason.
	bad := filepath.Join(dir, "bad.sh")
	if err := os.WriteFile(bad, []byte("#!/bin/bash\necho {{ .RunnerNmae }}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	msg, err := cliErr(t, "template", "update", "mine", "--path", bad)
	if err == nil || !strings.Contains(msg, "line 2") || !strings.Contains(msg, "RunnerNmae") {
		t.Fatalf("bad update: %v %s", err, msg)
	}
	if msg, err := cliErr(t, "template", "create", "--name", "x", "--path", file, "--forge-type", "gitlab", "--os-type", "linux"); err == nil ||
		!strings.Contains(msg, "forge-type") {
		t.Fatalf("bad forge accepted: %s", msg)
	}

	runCLI(t, "template", "update", "mine", "--description", "changed")
	runCLI(t, "template", "copy", "mine", "mine-copy")
	var copied apiv1.Template
	decode(t, runCLI(t, "template", "show", "mine-copy", "--format", "json"), &copied)
	if string(copied.Data) != string(shown.Data) || copied.Description != "changed" {
		t.Fatalf("copy %+v", copied)
	}
	dl := filepath.Join(dir, "dl.sh")
	runCLI(t, "template", "download", "mine-copy", "--path", dl)
	if got, _ := os.ReadFile(dl); string(got) != string(shown.Data) {
		t.Fatalf("downloaded %q", got)
	}
	if _, err := cliErr(t, "template", "download", "mine-copy", "--path", dl); err == nil {
		t.Fatal("download overwrote an existing file")
	}

	// Pools name a template by name or id.
	sim := forgesim.New(forgesim.Options{})
	simURL, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sim.AddToken("ghp_templatecli")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "github", "endpoint", "create", "--name", "sim", "--description", "forge simulator",
		"--base-url", simURL, "--api-base-url", simURL+"/api/v3/", "--upload-url", simURL+"/api/uploads/")
	runCLI(t, "github", "credentials", "add", "--name", "pat1", "--description", "bot",
		"--endpoint", "sim", "--auth-type", "pat", "--pat-oauth-token", "ghp_templatecli")
	runCLI(t, "repo", "add", "--owner", "acme", "--name", "app", "--credentials", "pat1", "--webhook-secret", "s")
	var pool apiv1.Pool
	decode(t, runCLI(t, "pool", "add", "--repo", "acme/app", "--provider-name", "lxd", "--image", "i", "--flavor", "f",
		"--tags", "linux", "--min-idle-runners", "0", "--runner-install-template", "mine", "--format", "json"), &pool)
	if pool.TemplateID != shown.ID || pool.TemplateName != "mine" {
		t.Fatalf("pool template %d %q", pool.TemplateID, pool.TemplateName)
	}
	decode(t, runCLI(t, "pool", "update", pool.ID, "--runner-install-template", itoaU(copied.ID), "--format", "json"), &pool)
	if pool.TemplateName != "mine-copy" {
		t.Fatalf("updated pool template %q", pool.TemplateName)
	}
	if msg, err := cliErr(t, "template", "delete", "mine-copy"); err == nil || !strings.Contains(msg, "in use") {
		t.Fatalf("deleted a template in use: %s", msg)
	}
	runCLI(t, "template", "delete", "mine")

	runCLI(t, "template", "update", "gitea_linux", "--name", "renamed")
	runCLI(t, "template", "restore", "--forge-type", "gitea", "--os-type", "linux")
	runCLI(t, "template", "show", "gitea_linux")
	runCLI(t, "template", "restore")
	if msg, err := cliErr(t, "template", "restore", "--forge-type", "gitea"); err == nil {
		t.Fatalf("restore with one flag: %s", msg)
	}
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
}

func itoaU(n uint) string { b, _ := json.Marshal(n); return string(b) }

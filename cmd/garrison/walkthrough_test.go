package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/provider/providertest"
)

const testPassword = "correct-horse-battery-staple-42!"

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// testServer is a `garrison server` running in-process until stop is called.
type testServer struct {
	url  string
	stop func()
}

func startServer(t *testing.T, addr string, args ...string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var logs bytes.Buffer
	go func() {
		done <- run(ctx, append([]string{"server", "--listen", addr}, args...), nil, &logs, &logs)
	}()
	url := "http://" + addr
	// A readiness wait, not a speed check: generous for a loaded machine.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("server exited with %d:\n%s", code, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not come up:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := &testServer{url: url}
	stopped := false
	s.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("server exited with %d:\n%s", code, logs.String())
		}
	}
	t.Cleanup(s.stop)
	return s
}

// cli runs one client command line and returns its output; it fails the test on error
// unless wantErr is set.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := cliErr(t, args...)
	if err != nil {
		t.Fatalf("garrison %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func cliErr(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(""), &out, &errOut)
	if code != 0 {
		return out.String() + errOut.String(), fmt.Errorf("exit code %d", code)
	}
	return out.String(), nil
}

// writeSimConfig writes a server config with the simulation provider registered as "lxd".
func writeSimConfig(t *testing.T, dir string) string {
	t.Helper()
	exe := providertest.Build(t, "github.com/garrison-ci/garrison/providers/sim")
	state := filepath.Join(dir, "sim-state")
	simCfg := filepath.Join(dir, "sim.toml")
	if err := os.WriteFile(simCfg, fmt.Appendf(nil, "state_dir = %q\n", state), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	body := fmt.Sprintf(`
[[provider]]
name = "lxd"
provider_type = "external"
description = "simulation provider standing in for LXD"
  [provider.external]
  provider_executable = %q
  config_file = %q
  interface_version = "v0.1.1"
`, exe, simCfg)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestWalkthrough runs a setup like the README's quick start (TestQuickStart runs the README
// itself) in-process against a real server on a real SQLite file, restarts the server, and
// checks that everything survived.
func TestWalkthrough(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GARRISON_CONFIG_DIR", filepath.Join(dir, "client"))
	cfg := writeSimConfig(t, dir)
	data := filepath.Join(dir, "data")
	addr := freeAddr(t)
	srv := startServer(t, addr, "--data-dir", data, "--config", cfg)

	runCLI(t, "init", "--name", "local", "--url", srv.url, "--username", "admin",
		"--email", "admin@example.com", "--password", testPassword)
	runCLI(t, "github", "endpoint", "create", "--name", "ghes", "--description", "our GHES",
		"--base-url", "https://ghes.example.com", "--api-base-url", "https://ghes.example.com/api/v3/",
		"--upload-url", "https://ghes.example.com/api/uploads/")
	// The forge simulator stands in for github.com: no test talks to the internet.
	sim := forgesim.New(forgesim.Options{})
	simURL, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sim.AddToken("ghp_walkthroughsecret")
	sim.AddOrg("acme")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "github", "endpoint", "create", "--name", "sim", "--description", "forge simulator",
		"--base-url", simURL, "--api-base-url", simURL+"/api/v3/", "--upload-url", simURL+"/api/uploads/")
	runCLI(t, "github", "credentials", "add", "--name", "pat1", "--description", "bot",
		"--endpoint", "sim", "--auth-type", "pat", "--pat-oauth-token", "ghp_walkthroughsecret")
	runCLI(t, "repo", "add", "--owner", "acme", "--name", "app", "--credentials", "pat1",
		"--webhook-secret", "walkthrough-webhook-secret")
	runCLI(t, "pool", "add", "--repo", "acme/app", "--provider-name", "lxd", "--image", "ubuntu:24.04",
		"--flavor", "default", "--tags", "linux,x64", "--min-idle-runners", "1", "--max-runners", "10", "--enabled")

	before := listPools(t)
	checkPool(t, before)
	// The reconciler keeps one idle runner: the simulation provider creates its instance.
	waitFor(t, "an instance of the pool running", func() bool {
		var insts []apiv1.Instance
		out := runCLI(t, "runner", "list", "--format", "json")
		if err := json.Unmarshal([]byte(out), &insts); err != nil {
			t.Fatalf("runner list output is not JSON: %v\n%s", err, out)
		}
		return len(insts) == 1 && insts[0].Status == "running" && insts[0].PoolID == before[0].ID
	})
	if out := runCLI(t, "provider", "list"); !strings.Contains(out, "lxd") {
		t.Errorf("provider list lacks lxd:\n%s", out)
	}

	srv.stop()
	srv = startServer(t, addr, "--data-dir", data, "--config", cfg)
	after := listPools(t)
	checkPool(t, after)
	if before[0].ID != after[0].ID {
		t.Errorf("pool id changed across restart: %s -> %s", before[0].ID, after[0].ID)
	}
	if out := runCLI(t, "github", "endpoint", "list"); !strings.Contains(out, "ghes") {
		t.Errorf("endpoint ghes lost across restart:\n%s", out)
	}

	// The secrets written through the API are sealed: they appear nowhere in clear.
	for _, secret := range []string{"ghp_walkthroughsecret", "walkthrough-webhook-secret"} {
		assertNotOnDisk(t, data, secret)
	}

	// A password reset revokes the token the profile holds.
	srv.stop()
	t.Setenv("GARRISON_PASSWORD", "")
	runCLI(t, "admin", "password-reset", "--data-dir", data, "--config", cfg, "--password", "another-long-passphrase-77%")
	startServer(t, addr, "--data-dir", data, "--config", cfg)
	if out, err := cliErr(t, "pool", "list"); err == nil {
		t.Errorf("old token still accepted after password reset:\n%s", out)
	}
	runCLI(t, "profile", "login", "--password", "another-long-passphrase-77%")
	checkPool(t, listPools(t))
}

// waitFor polls cond until it holds, failing the test after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func listPools(t *testing.T) []apiv1.Pool {
	t.Helper()
	var pools []apiv1.Pool
	out := runCLI(t, "pool", "list", "--format", "json")
	if err := json.Unmarshal([]byte(out), &pools); err != nil {
		t.Fatalf("pool list output is not JSON: %v\n%s", err, out)
	}
	return pools
}

func checkPool(t *testing.T, pools []apiv1.Pool) {
	t.Helper()
	if len(pools) != 1 {
		t.Fatalf("got %d pools, want 1", len(pools))
	}
	p := pools[0]
	var tags []string
	for _, tg := range p.Tags {
		tags = append(tags, tg.Name)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"provider_name", p.ProviderName, "lxd"},
		{"image", p.Image, "ubuntu:24.04"},
		{"flavor", p.Flavor, "default"},
		{"tags", strings.Join(tags, ","), "linux,x64"},
		{"min_idle_runners", p.MinIdleRunners, uint(1)},
		{"max_runners", p.MaxRunners, uint(10)},
		{"enabled", p.Enabled, true},
		{"repo_name", p.RepoName, "acme/app"},
		{"os_type", p.OSType, "linux"},
		{"os_arch", p.OSArch, "amd64"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("pool %s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func assertNotOnDisk(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret %q in clear", path, secret)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestServerRefusesBadConfig(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body, want string
	}{
		{"unknown key", "[apiserver]\nprot = 1\n", "prot"},
		{"wrong type", "[apiserver]\nport = \"x\"\n", "apiserver.port"},
		{"bad value", "[database]\nbackend = \"mysql\"\n", "database.backend"},
		{"bad provider", "[[provider]]\nname = \"p\"\nprovider_type = \"external\"\n[provider.external]\nprovider_executable = \"/nonexistent/p\"\n", "provider_executable"},
		{"syntax", "[apiserver\n", "line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".toml")
			if err := os.WriteFile(cfg, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			code := run(t.Context(), []string{"server", "--data-dir", filepath.Join(dir, "data"), "--config", cfg, "--listen", "127.0.0.1:0"}, nil, &out, &out)
			if code == 0 {
				t.Fatalf("server started with a bad config")
			}
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("error %q does not mention %q", out.String(), c.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	out := runCLI(t, "version")
	if !strings.HasPrefix(out, "garrison ") {
		t.Errorf("version output %q", out)
	}
}

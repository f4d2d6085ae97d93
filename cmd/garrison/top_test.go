package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/forgesim"
)

// TestTopLive runs `garrison top` against a real server in-process: it draws the
// server's snapshots as they come, so a repository added while it runs shows up in a
// later frame, and it exits 0 when interrupted; `top --once` prints one snapshot and
// exits by itself.
func TestTopLive(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GARRISON_CONFIG_DIR", filepath.Join(dir, "client"))
	srv := startServer(t, freeAddr(t), "--data-dir", filepath.Join(dir, "data"))
	runCLI(t, "init", "--name", "local", "--url", srv.url, "--username", "admin",
		"--email", "admin@example.com", "--password", testPassword)
	sim := forgesim.New(forgesim.Options{})
	simURL, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sim.AddToken("ghp_topsecret")
	runCLI(t, "github", "endpoint", "create", "--name", "sim", "--description", "forge simulator", "--base-url", simURL,
		"--api-base-url", simURL+"/api/v3/", "--upload-url", simURL+"/api/uploads/")
	runCLI(t, "github", "credentials", "add", "--name", "pat1", "--description", "bot", "--endpoint", "sim", "--auth-type", "pat",
		"--pat-oauth-token", "ghp_topsecret")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	var errOut bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run(ctx, []string{"top"}, strings.NewReader(""), &out, &errOut) }()
	frames := func() int { return strings.Count(out.String(), "POOL MANAGER") }
	waitOutput(t, "the first snapshot", &out, code, func() bool { return frames() >= 1 })
	if strings.Contains(out.String(), "acme/app") {
		t.Fatalf("the first snapshot shows a repository not made yet:\n%s", out.String())
	}
	first := frames()
	runCLI(t, "repo", "add", "--owner", "acme", "--name", "app", "--credentials", "pat1", "--webhook-secret", "top-webhook-secret")
	waitOutput(t, "a later snapshot with the new repository", &out, code, func() bool {
		return frames() > first && strings.Contains(out.String(), "repository  acme/app")
	})
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("top exited %d when interrupted: %s", c, errOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("top did not stop when interrupted")
	}

	once := runCLI(t, "top", "--once")
	if n := strings.Count(once, "POOL MANAGER"); n != 1 || !strings.Contains(once, "repository  acme/app") {
		t.Errorf("top --once printed %d snapshots:\n%s", n, once)
	}
}

// waitOutput waits until cond holds for a command still running (code not sent).
func waitOutput(t *testing.T, what string, out *syncBuffer, code <-chan int, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a wait, not a speed check: frames come every 5 s
	for !cond() {
		select {
		case c := <-code:
			t.Fatalf("top exited %d while waiting for %s:\n%s", c, what, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s:\n%s", what, out.String())
		}
	}
}

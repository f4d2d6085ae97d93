package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStreamCommands runs `garrison server` with the log streamer on and the stream
// commands against it: `events` prints the create of an endpoint made by another command,
// `top --once` a snapshot, `logs` the server's records; a server without the streamer
// makes `logs` fail with GARM's message. About 30 s: it runs with GARRISON_E2E_SLOW=1.
func TestStreamCommands(t *testing.T) {
	if os.Getenv("GARRISON_E2E_SLOW") != "1" {
		t.Skip("set GARRISON_E2E_SLOW=1 to run the stream commands against a real server")
	}
	dir := t.TempDir()
	t.Setenv("GARRISON_CONFIG_DIR", filepath.Join(dir, "client"))
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[logging]\nenable_log_streamer = true\nlog_level = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	srv := startServer(t, addr, "--data-dir", filepath.Join(dir, "data"), "--config", cfg)
	runCLI(t, "init", "--name", "local", "--url", srv.url, "--username", "admin",
		"--email", "admin@example.com", "--password", testPassword)

	ctx, cancel := context.WithCancel(t.Context())
	var events, logs syncBuffer
	var wg sync.WaitGroup
	codes := make(chan string, 2)
	for _, c := range []struct {
		args []string
		out  *syncBuffer
	}{{[]string{"events", "--type", "github_endpoint", "--operation", "create"}, &events}, {[]string{"logs"}, &logs}} {
		wg.Go(func() {
			var errOut bytes.Buffer
			if code := run(ctx, c.args, strings.NewReader(""), c.out, &errOut); code != 0 {
				codes <- fmt.Sprintf("%v: exit %d: %s", c.args, code, errOut.String())
			}
		})
	}
	// The subscription lands at some point after the command starts: create endpoints
	// until one is reported.
	for i := 0; !strings.Contains(events.String(), `"operation":"create"`); i++ {
		if i == 100 {
			t.Fatalf("no event after %d endpoint creates; events output %q", i, events.String())
		}
		runCLI(t, "github", "endpoint", "create", "--name", fmt.Sprintf("ghes-%d", i),
			"--base-url", "https://ghes.example.com", "--api-base-url", "https://ghes.example.com/api/v3/",
			"--upload-url", "https://ghes.example.com/api/uploads/")
		time.Sleep(50 * time.Millisecond)
	}
	if line := strings.SplitN(events.String(), "\n", 2)[0]; !strings.HasPrefix(line, `{"entity-type":"github_endpoint","operation":"create","payload":{"name":"ghes-`) {
		t.Errorf("event line %q", line)
	}
	// A request without a token is logged at debug ("authentication failed").
	for i := 0; !strings.Contains(logs.String(), "[DEBUG] authentication failed"); i++ {
		if i == 200 {
			t.Fatalf("no log line on the stream: %q", logs.String())
		}
		resp, err := http.Get(srv.url + "/api/v1/pools")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	close(codes)
	for c := range codes {
		t.Error(c)
	}

	top := runCLI(t, "top", "--once")
	if !strings.Contains(top, "POOL MANAGER") || !strings.Contains(top, "BY RUNNER STATUS") {
		t.Errorf("top --once printed %q", top)
	}

	// The same server (data directory, address, so the profile's token) without the streamer.
	srv.stop()
	startServer(t, addr, "--data-dir", filepath.Join(dir, "data"))
	out, err := cliErr(t, "logs")
	if err == nil || !strings.Contains(out, "failed to stream logs: log streamer is disabled") {
		t.Errorf("logs without the streamer: %v %q", err, out)
	}
}

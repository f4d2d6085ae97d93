package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

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

func TestDemoRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--jobs", "0"}, {"--timeout", "0s"}, {"--job-duration", "-1s"}} {
		var out bytes.Buffer
		if code := run(t.Context(), append([]string{"demo"}, args...), nil, &out, &out); code == 0 {
			t.Errorf("demo %v: exit 0", args)
		}
	}
}

func TestBenchRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--scenario", "nope"}, {"--scenario", "burst", "--scale", "0"}, {"--scenario", "idle", "--boot-delay", "-1s"}} {
		var out bytes.Buffer
		if code := run(t.Context(), append([]string{"bench"}, args...), nil, &out, &out); code == 0 {
			t.Errorf("bench %v: exit 0", args)
		}
	}
}

// TestProviderCheckFails runs the conformance kit against an executable that is no
// provider: the check exits non-zero with its table.
func TestProviderCheckFails(t *testing.T) {
	var out bytes.Buffer
	code := run(t.Context(), []string{"provider", "check", "--executable", "/bin/false", "--config", "/dev/null",
		"--timeout", "10s"}, nil, &out, &out)
	if code == 0 {
		t.Fatalf("provider check of /bin/false: exit 0\n%s", out.String())
	}
	if !strings.Contains(out.String(), "does not conform") {
		t.Errorf("output lacks the verdict:\n%s", out.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	var out bytes.Buffer
	if code := run(t.Context(), []string{"provider", "chek"}, nil, &out, &out); code == 0 || !strings.Contains(out.String(), `unknown command "chek"`) {
		t.Errorf("provider chek: exit %d, output %q", code, out.String())
	}
}

func TestForgesim(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	var out bytes.Buffer
	go func() {
		done <- run(ctx, []string{"forgesim", "--listen", addr, "--token", "tok", "--repo", "acme/app",
			"--scaleset-hold", "1s", "--scaleset-available"}, nil, &out, &out)
	}()
	var resp *http.Response
	for i := 0; i < 500; i++ {
		req, _ := http.NewRequest("GET", "http://"+addr+"/repos/acme/app/actions/runners", nil)
		req.Header.Set("Authorization", "Bearer tok")
		var err error
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp == nil {
		cancel()
		t.Fatalf("simulator did not come up: %s", out.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("list runners on the simulator: status %d", resp.StatusCode)
	}
	if resp, err := http.Get("http://" + addr + "/_sim/scalesets"); err != nil {
		t.Errorf("scale sets on the simulator: %v", err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("scale sets on the simulator: status %d", resp.StatusCode)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("forgesim exited with %d: %s", code, out.String())
	}
}

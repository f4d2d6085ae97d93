package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demoHelperEnv makes the test binary play the garrison binary (see TestDemoHelperProcess).
const demoHelperEnv = "GARRISON_DEMO_HELPER"

// TestDemoHelperProcess is not a test. The demo's wrapper scripts run this test binary
// with GARRISON_DEMO_HELPER=1 and a garrison command line after "--" (dev sim-provider,
// dev standin-runner), the way a built garrison binary would run them.
func TestDemoHelperProcess(t *testing.T) {
	if os.Getenv(demoHelperEnv) != "1" {
		t.Skip("helper process of TestDemo")
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// TestDemo runs a small demo in-process and checks its JSON summary.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server, the forge simulator and dozens of processes")
	}
	if err := checkDemoHost(); err != nil {
		t.Skip(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	file := filepath.Join(t.TempDir(), "summary.json")
	o := demoOptions{
		jobs: 6, jobDuration: 300 * time.Millisecond, bootDelay: 50 * time.Millisecond,
		timeout: 4 * time.Minute, jsonFile: file, baseDir: base,
		self: selfCommand{env: []string{demoHelperEnv + "=1"}, argv: []string{exe, "-test.run=^TestDemoHelperProcess$", "--"}},
	}
	var out bytes.Buffer
	if _, err := runDemo(t.Context(), o, &out); err != nil {
		t.Fatalf("demo: %v\n%s\n%s", err, out.String(), serverLogTail(base))
	}
	var raw map[string]json.RawMessage
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, b)
	}
	for _, k := range []string{"jobs_total", "jobs_completed", "instances_leaked", "queued_to_started_ms", "api_calls_per_job"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("summary lacks %q:\n%s", k, b)
		}
	}
	var s demoSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	checkDemoSummary(t, s, o.jobs)
	if left, _ := filepath.Glob(filepath.Join(base, "garrison-demo-*")); len(left) != 0 {
		t.Errorf("demo directory left behind: %v", left)
	}
	if !strings.Contains(out.String(), "summary") {
		t.Errorf("no summary table in the output:\n%s", out.String())
	}
}

// checkDemoSummary checks the numbers of a successful run.
func checkDemoSummary(t *testing.T, s demoSummary, jobs int) {
	t.Helper()
	q := s.QueuedToStarted
	switch {
	case s.JobsTotal != jobs || s.JobsCompleted != jobs:
		t.Errorf("jobs total %d completed %d, want %d", s.JobsTotal, s.JobsCompleted, jobs)
	case s.InstancesLeaked != 0 || s.ProcessesLeaked != 0 || s.InstancesRemaining != 0:
		t.Errorf("left behind: %d instances, %d processes, %d remaining", s.InstancesLeaked, s.ProcessesLeaked, s.InstancesRemaining)
	case !(q.P50 > 0 && q.P50 <= q.P95 && q.P95 <= q.P99):
		t.Errorf("queue time percentiles not present and ordered: %+v", q)
	case s.APICallsPerJob <= 0:
		t.Errorf("api_calls_per_job %v, want > 0", s.APICallsPerJob)
	}
}

// serverLogTail returns the end of the server log of a demo kept after a failure.
func serverLogTail(base string) string {
	logs, _ := filepath.Glob(filepath.Join(base, "garrison-demo-*", "server.log"))
	if len(logs) == 0 {
		return "(no server log)"
	}
	b, _ := os.ReadFile(logs[0])
	if len(b) > 20000 {
		b = b[len(b)-20000:]
	}
	return string(b)
}

func TestDemoPercentiles(t *testing.T) {
	tests := []struct {
		in   []float64
		want percentiles
	}{
		{nil, percentiles{}},
		{[]float64{7}, percentiles{7, 7, 7}},
		{[]float64{4, 1, 3, 2}, percentiles{2, 4, 4}},
		{[]float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200}, percentiles{100, 190, 200}},
	}
	for _, tt := range tests {
		if got := percentilesOf(tt.in); got != tt.want {
			t.Errorf("percentilesOf(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestDemoRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--jobs", "0"}, {"--timeout", "0s"}, {"--job-duration", "-1s"}} {
		var out bytes.Buffer
		if code := run(t.Context(), append([]string{"demo"}, args...), nil, &out, &out); code == 0 {
			t.Errorf("demo %v: exit 0", args)
		}
	}
}

func TestDemoWrapperScript(t *testing.T) {
	s := selfCommand{env: []string{"A=b c"}, argv: []string{"/x/it's"}}.script("dev", "sim-provider")
	want := "export 'A=b c'\nexec '/x/it'\\''s' 'dev' 'sim-provider' \"$@\"\n"
	if !strings.HasPrefix(s, "#!/bin/sh\n") || !strings.HasSuffix(s, want) {
		t.Errorf("script:\n%s\nwant suffix:\n%s", s, want)
	}
}

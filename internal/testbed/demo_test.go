package testbed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// toolsHelperEnv makes the test binary play garrison-dev's tools (see TestHelperProcess).
const toolsHelperEnv = "GARRISON_TESTBED_HELPER"

// TestHelperProcess is not a test. The bed's wrapper scripts run this test binary with
// GARRISON_TESTBED_HELPER=1 and a tool's command line after "--" (sim-provider,
// standin-runner), the way garrison-dev runs them.
func TestHelperProcess(t *testing.T) {
	if !testbed.ServeHelperProcess(toolsHelperEnv) {
		t.Skip("helper process of the tests that boot simulated instances")
	}
}

// helperTools is the tools the bed's wrapper scripts run: the testtools program, built
// once (or this test binary, see TestHelperProcess, without a Go toolchain).
func helperTools(t *testing.T) testbed.Command {
	t.Helper()
	return testbed.MustTestTools(t, toolsHelperEnv)
}

func TestMain(m *testing.M) { os.Exit(testbed.RunTests(m)) }

// TestDemo runs a small demo in-process and checks its JSON summary.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server, the forge simulator and dozens of processes")
	}
	if err := testbed.CheckHost(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	file := filepath.Join(t.TempDir(), "summary.json")
	o := testbed.DemoOptions{
		Options: testbed.Options{JobDuration: 300 * time.Millisecond, BootDelay: 50 * time.Millisecond,
			BaseDir: base, Tools: helperTools(t)},
		Jobs: 6, Timeout: 4 * time.Minute, JSONFile: file,
	}
	var out bytes.Buffer
	if _, err := testbed.RunDemo(t.Context(), o, &out); err != nil {
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
	var s testbed.DemoSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	checkDemoSummary(t, s, o.Jobs)
	if left, _ := filepath.Glob(filepath.Join(base, "garrison-demo-*")); len(left) != 0 {
		t.Errorf("demo directory left behind: %v", left)
	}
	if !strings.Contains(out.String(), "summary") {
		t.Errorf("no summary table in the output:\n%s", out.String())
	}
}

// checkDemoSummary checks the numbers of a successful run.
func checkDemoSummary(t *testing.T, s testbed.DemoSummary, jobs int) {
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
		want testbed.Percentiles
	}{
		{nil, testbed.Percentiles{}},
		{[]float64{7}, testbed.Percentiles{7, 7, 7}},
		{[]float64{4, 1, 3, 2}, testbed.Percentiles{2, 4, 4}},
		{[]float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200}, testbed.Percentiles{100, 190, 200}},
	}
	for _, tt := range tests {
		if got := testbed.PercentilesOf(tt.in); got != tt.want {
			t.Errorf("percentilesOf(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestDemoOptionsValidate(t *testing.T) {
	good := testbed.DemoOptions{Options: testbed.Options{JobDuration: time.Second}, Jobs: 20, Timeout: time.Minute}
	if err := good.Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for name, bad := range map[string]func(*testbed.DemoOptions){
		"no jobs":           func(o *testbed.DemoOptions) { o.Jobs = 0 },
		"too many jobs":     func(o *testbed.DemoOptions) { o.Jobs = 501 },
		"no timeout":        func(o *testbed.DemoOptions) { o.Timeout = 0 },
		"negative job time": func(o *testbed.DemoOptions) { o.JobDuration = -time.Second },
		"negative boot":     func(o *testbed.DemoOptions) { o.BootDelay = -time.Second },
	} {
		o := good
		bad(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestDemoWrapperScript(t *testing.T) {
	s := testbed.Command{Env: []string{"A=b c"}, Argv: []string{"/x/it's"}}.Script("dev", "sim-provider")
	want := "export 'A=b c'\nexec '/x/it'\\''s' 'dev' 'sim-provider' \"$@\"\n"
	if !strings.HasPrefix(s, "#!/bin/sh\n") || !strings.HasSuffix(s, want) {
		t.Errorf("script:\n%s\nwant suffix:\n%s", s, want)
	}
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// uiLine finds the web UI's address and login in the demo's output.
var uiLine = regexp.MustCompile(`web UI +(http://\S+/ui/)\n +username +(\S+)\n +password +(\S+)\n`)

// TestDemoUI: with UI the demo keeps serving after its summary and prints where the web
// UI is and how to log in; both work, and the demo cleans up when its context ends.
func TestDemoUI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server, the forge simulator and several processes")
	}
	if err := testbed.CheckHost(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	o := testbed.DemoOptions{
		Options: testbed.Options{JobDuration: 200 * time.Millisecond, BootDelay: 50 * time.Millisecond,
			BaseDir: base, Tools: helperTools(t)},
		Jobs: 2, Timeout: 4 * time.Minute, UI: true,
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		_, err := testbed.RunDemo(ctx, o, out)
		done <- err
	}()
	var m []string
	for m == nil {
		select {
		case err := <-done:
			t.Fatalf("the demo ended before printing the web UI: %v\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
			m = uiLine.FindStringSubmatch(out.String())
		}
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET %s: %d %s", m[1], resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c, err := apiclient.New(strings.TrimSuffix(m[1], "/ui/"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Login(t.Context(), apiv1.PasswordLoginParams{Username: m[2], Password: m[3]}); err != nil {
		t.Errorf("logging in with the printed credentials: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("demo: %v\n%s", err, out.String())
	}
	if left, _ := filepath.Glob(filepath.Join(base, "garrison-demo-*")); len(left) != 0 {
		t.Errorf("demo directory left behind: %v", left)
	}
}

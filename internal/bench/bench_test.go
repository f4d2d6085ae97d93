package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestScenarios runs intake, burst and restart at a tiny scale, with a build of
// ./cmd/garrison as the server and the test binary as the simulation provider (see
// TestHelperProcess) or a build of ./providers/sim, and checks that the JSON has the
// scenario's keys with sane values. Nothing is timed.
func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server process, the forge simulator and the simulation provider")
	}
	if err := testbed.CheckHost(); err != nil {
		t.Skip(err)
	}
	server := testbed.Command{Argv: []string{built(t, garrisonProgram)}}
	tools := helperTools(t)
	tests := []struct {
		scenario   string
		scale      float64
		standalone bool // a build of ./providers/sim as the provider
		keys       []string
	}{
		{"intake", 0.005, false, []string{"intake_per_second", "intake_p99_ms", "cpu_ms_per_delivery", "cpu_seconds", "peak_rss_mb"}},
		{"burst", 0.01, false, []string{"webhook_to_create_ms", "webhook_post_ms", "webhook_server_ms", "webhook_server_under_10ms_percent", "webhook_writer_wait_ms", "queued_to_started_ms", "queued_to_idle_ms", "boot_delay_ms",
			"api_calls_per_job", "api_calls_by_endpoint", "jobs_total", "jobs_completed", "instances_leaked", "cpu_seconds", "peak_rss_mb",
			"machine_busy_percent", "machine_steal_percent"}},
		{"restart", 0.001, false, []string{"restart_reconciled_s", "restart_repaired_s", "full_reconcile_ms", "full_repair_ms", "cpu_seconds", "peak_rss_mb"}},
		{"burst", 0.01, true, []string{"webhook_to_create_ms", "jobs_completed", "instances_leaked", "provider_calls"}},
	}
	for _, tt := range tests {
		name := tt.scenario
		if tt.standalone {
			name += "/standalone-provider"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Scenario: tt.scenario, Scale: tt.scale, Duration: 2 * time.Second, BaseDir: t.TempDir(),
				JSONFile: filepath.Join(dir, "r.json"), SVGFile: filepath.Join(dir, "r.svg"), Server: server, Tools: tools}
			if tt.standalone {
				o.SimProvider = built(t, simProviderProgram)
				o.CPUProfile = filepath.Join(dir, "cpu.prof")
				o.MemProfile = filepath.Join(dir, "heap.prof")
			}
			var out bytes.Buffer
			if _, err := Run(t.Context(), o, &out); err != nil {
				t.Fatalf("bench: %v\n%s", err, out.String())
			}
			raw := readBenchJSON(t, o.JSONFile)
			for _, k := range tt.keys {
				if _, ok := raw[k]; !ok {
					t.Errorf("no %q in the JSON", k)
				}
			}
			checkBenchSane(t, o.JSONFile)
			checkProviderNote(t, o)
			if fi, err := os.Stat(o.CPUProfile); o.CPUProfile != "" && (err != nil || fi.Size() == 0) {
				t.Errorf("--cpuprofile wrote no profile: %v", err)
			}
			if b, err := os.ReadFile(o.MemProfile); o.MemProfile != "" && (err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b})) {
				t.Errorf("--memprofile wrote no gzipped pprof profile: %v", err)
			}
			if tt.scenario == "restart" {
				return // no chart
			}
			if svg, err := os.ReadFile(o.SVGFile); err != nil || !strings.HasPrefix(string(svg), "<svg") {
				t.Errorf("no SVG chart: %v", err)
			}
		})
	}
}

// built builds p as bench does from the source tree, once per test binary.
func built(t *testing.T, p program) string {
	t.Helper()
	buildsMu.Lock()
	defer buildsMu.Unlock()
	if bin, ok := builds[p.name]; ok {
		return bin
	}
	bin, _, err := buildInWorkingDir(t.Context(), p) // removed by TestMain
	if err != nil {
		t.Fatal(err)
	}
	builds[p.name] = bin
	return bin
}

// checkProviderNote checks that the result names the simulation provider that ran and,
// for a standalone one, that the server ran it.
func checkProviderNote(t *testing.T, o Options) {
	t.Helper()
	var r Result
	b, err := os.ReadFile(o.JSONFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.Notes, simProviderNote(o.SimProvider)) {
		t.Errorf("notes %q do not name the provider %q", r.Notes, o.SimProvider)
	}
	if o.SimProvider != "" && r.ProviderCalls["CreateInstance"] == 0 {
		t.Errorf("the standalone provider made no instance: calls %v", r.ProviderCalls)
	}
}

// readBenchJSON reads the --json file as a map.
func readBenchJSON(t *testing.T, file string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return raw
}

// checkBenchSane checks values that hold on any machine.
func checkBenchSane(t *testing.T, file string) {
	t.Helper()
	b, _ := os.ReadFile(file)
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.CPUSeconds == nil || *r.CPUSeconds < 0 || r.PeakRSSMB == nil || *r.PeakRSSMB <= 0 {
		t.Errorf("server process figures missing or negative:\n%s", b)
	}
	if r.IntakePerSecond != nil && (*r.IntakePerSecond <= 0 || *r.IntakeP99MS <= 0) {
		t.Errorf("intake figures not positive:\n%s", b)
	}
	if r.JobsCompleted != nil && (*r.JobsCompleted != *r.JobsTotal || *r.InstancesLeaked != 0) {
		t.Errorf("jobs not all completed or instances leaked:\n%s", b)
	}
	if p := r.WebhookToCreate; p != nil && !(p.P50 >= 0 && p.P50 <= p.P95 && p.P95 <= p.P99) {
		t.Errorf("webhook_to_create_ms not ordered: %+v", *p)
	}
	if p := r.WebhookPost; p != nil && !(p.P50 > 0 && p.P50 <= p.P95 && p.P95 <= p.P99) {
		t.Errorf("webhook_post_ms not positive and ordered: %+v", *p)
	}
	if r.JobsCompleted != nil && (r.MachineBusyPercent == nil || *r.MachineBusyPercent <= 0 || *r.MachineBusyPercent > 100 ||
		r.MachineStealPercent == nil || *r.MachineStealPercent < 0) {
		t.Errorf("a job scenario without the machine's busy and stolen shares in 0-100:\n%s", b)
	}
}

func TestOptionsValidate(t *testing.T) {
	good := Options{Scenario: "burst", Scale: 1}
	if err := good.Validate(); err != nil {
		t.Fatalf("burst at scale 1: %v", err)
	}
	for name, bad := range map[string]func(*Options){
		"unknown scenario":            func(o *Options) { o.Scenario = "nope" },
		"no scale":                    func(o *Options) { o.Scale = 0 },
		"scale above 1":               func(o *Options) { o.Scale = 1.5 },
		"negative boot delay":         func(o *Options) { o.BootDelay = -time.Second },
		"boot delay too long":         func(o *Options) { o.BootDelay = 2 * time.Minute },
		"negative duration":           func(o *Options) { o.Duration = -time.Second },
		"duration too long":           func(o *Options) { o.Duration = 3 * time.Hour },
		"replicas without a database": func(o *Options) { o.Scenario = replicasScenario },
	} {
		o := good
		bad(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestWebhookToCreate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	sent := map[int64]time.Time{1: at(0), 2: at(10), 3: at(20)}
	jobPool := map[int64]string{1: "a", 2: "a", 3: "b"}
	calls := []provCall{
		{start: at(-5), command: "CreateInstance", pool: "a"}, // before any webhook: min idle
		{start: at(30), command: "CreateInstance", pool: "a"},
		{start: at(35), command: "ListInstances", pool: "a"},
		{start: at(40), command: "CreateInstance", pool: "a"},
		{start: at(25), command: "CreateInstance", pool: "b"},
	}
	got := map[float64]bool{}
	for _, p := range webhookToCreate(sent, jobPool, calls, t0) {
		got[p.ms] = true
	}
	for _, want := range []float64{30, 30, 5} {
		if !got[want] {
			t.Errorf("latencies %v lack %v", got, want)
		}
	}
	if len(got) != 2 {
		t.Errorf("latencies %v, want {30, 5}", got)
	}
}

func TestWebhookPosts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ds := []forgesim.Delivery{
		{DeliveredAt: t0.Add(-time.Second), StatusCode: 200, Duration: 900 * time.Millisecond}, // before the run
		{DeliveredAt: t0, StatusCode: 200, Duration: 1500 * time.Microsecond},
		{DeliveredAt: t0.Add(time.Second), StatusCode: 500, Duration: 3 * time.Millisecond},
		{DeliveredAt: t0.Add(time.Second), Duration: time.Millisecond},                // no answer
		{DeliveredAt: t0.Add(time.Second), Dropped: true, Duration: time.Millisecond}, // never sent
	}
	ms, unanswered := webhookPosts(ds, t0)
	if !slices.Equal(ms, []float64{1.5, 3}) || unanswered != 1 {
		t.Errorf("webhookPosts = %v, %d unanswered; want [1.5 3], 1", ms, unanswered)
	}
}

// TestFirstPassMetrics reads the reconciler's first-pass gauges from /metrics text.
func TestFirstPassMetrics(t *testing.T) {
	text := `# HELP garrison_reconcile_first_pass_seconds Seconds ...
# TYPE garrison_reconcile_first_pass_seconds gauge
garrison_reconcile_first_pass_seconds{step="planned"} 0.25
garrison_reconcile_first_pass_seconds{step="repaired"} 3
garrison_reconcile_first_pass_completed_timestamp_seconds{step="planned"} 1.7673120015e+09
garrison_reconcile_first_pass_completed_timestamp_seconds{step="repaired"} 1.767312003e+09
other_metric 5
`
	planned, repaired, err := firstPassMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 1, 2, 0, 0, 1, 5e8, time.UTC)
	if planned.at.Sub(want).Abs() > time.Millisecond || repaired.at.Sub(want.Add(1500*time.Millisecond)).Abs() > time.Millisecond {
		t.Fatalf("planned %v repaired %v", planned.at.UTC(), repaired.at.UTC())
	}
	if planned.took != 250*time.Millisecond || repaired.took != 3*time.Second {
		t.Fatalf("pass durations %v and %v, want 250ms and 3s", planned.took, repaired.took)
	}
	p, r, err := firstPassMetrics(strings.NewReader("# nothing yet\n"))
	if err != nil || !p.at.IsZero() || !r.at.IsZero() {
		t.Fatalf("before the pass: %v %v %v", p, r, err)
	}
}

func TestFindProgram(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "garrison")
	beside := filepath.Join(dir, simProviderName)
	other := filepath.Join(t.TempDir(), "sim")
	plain := filepath.Join(dir, "not-executable")
	for path, mode := range map[string]os.FileMode{exe: 0o755, other: 0o755, plain: 0o644} {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	got, err := simProviderProgram.find("", exe)
	if err != nil || got != "" {
		t.Errorf("nothing beside: got %q, %v; want this binary", got, err)
	}
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, given, want string
		wantErr           bool
	}{
		{"found beside the binary", "", beside, false},
		{"given path wins", other, other, false},
		{"given directory", dir, "", true},
		{"given missing file", filepath.Join(dir, "missing"), "", true},
		{"given non-executable file", plain, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := simProviderProgram.find(tt.given, exe)
			if tt.wantErr {
				if !errors.Is(err, errSimProvider) {
					t.Fatalf("err = %v, want errSimProvider", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestBuildProgram builds the standalone simulation provider from garrison's source
// (the test runs in it) and refuses a directory outside it.
func TestBuildProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin, cleanup, err := simProviderProgram.build(t.Context(), wd)
	if err != nil {
		t.Fatal(err)
	}
	// With no provider environment it refuses, naming what is missing: it is the provider.
	out, _ := exec.Command(bin).CombinedOutput()
	if !bytes.Contains(out, []byte("GARM_")) {
		t.Errorf("the built executable is not the provider: %q", out)
	}
	cleanup()
	if _, err := os.Stat(bin); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s: %v", bin, err)
	}
	for _, p := range []program{simProviderProgram, garrisonProgram} {
		if _, _, err := p.build(t.Context(), t.TempDir()); !errors.Is(err, p.err) {
			t.Errorf("%s outside the source: err = %v, want %v", p.name, err, p.err)
		}
	}
}

package testbed_test

// End-to-end harness for the real-daemon tests (TestDaemonE2E*): the garrison server
// (in-process on a bed), the forge simulator and a real provider executable
// (Incus or Docker) against the daemons scripts/daemons/setup.sh starts. Network safety
// (/work/shared/design/real-daemons.md N-4): the server and the simulator listen on the
// daemon's bridge address only, so the instances reach nothing but this host.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/internal/standin"
	"github.com/garrison-ci/garrison/internal/testbed"
	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// Environment of the end-to-end daemon tests.
const (
	// rdDaemonsEnv must be 1 for the tests to run (as for the provider daemon tests).
	rdDaemonsEnv = "GARRISON_TEST_DAEMONS"
	// rdRunsEnv overrides the number of jobs run one after another (default 10).
	rdRunsEnv = "GARRISON_E2E_RUNS"
	// rdTimingsEnv names a JSON file the timings are written to, one key per provider
	// (the file is merged, so both providers' tests can share it).
	rdTimingsEnv = "GARRISON_E2E_TIMINGS_JSON"

	rdSkipMessage = "set GARRISON_TEST_DAEMONS=1 and run scripts/daemons/setup.sh (or scripts/daemons/test.sh) to run the end-to-end tests against real daemons"

	rdDefaultRuns = 10
	rdJobDuration = 500 * time.Millisecond
	// rdJobTimeout bounds one job, from queueing to its completion on the forge.
	rdJobTimeout = 3 * time.Minute
	// rdGoneTimeout bounds the wait for garrison to delete the instance after its job.
	rdGoneTimeout = 2 * time.Minute
	rdRepo        = "acme/e2e"
)

// rdBackend is one real provider under test.
type rdBackend struct {
	name     string // provider name in the server config
	bridgeIP string // the daemon's bridge address: the only address the server and simulator listen on
	pkg      string // import path of the provider executable
	config   string // the provider's TOML config
	image    string
	flavor   string
	specs    string // pool extra specs (JSON)
	// leftovers lists the daemon's instances tagged with controllerID, asked of the
	// daemon directly (not through the provider).
	leftovers func(ctx context.Context, controllerID string) ([]string, error)
}

// rdRun is one job's record.
type rdRun struct {
	Job    int64  `json:"job_id"`
	Runner string `json:"runner"`
	// QueuedToCreated is until garrison shows the instance running (the provider's
	// create returned), polled every 100 ms.
	QueuedToCreated float64 `json:"queued_to_created_ms"`
	// QueuedToCallback is until the instance's first status callback (booted, install
	// script started).
	QueuedToCallback float64 `json:"queued_to_first_callback_ms"`
	// QueuedToIdle is from queueing the job to garrison storing the runner's idle status
	// (the install script's callback answered).
	QueuedToIdle  float64 `json:"queued_to_idle_ms"`
	QueuedToStart float64 `json:"queued_to_started_ms"`
	QueuedToDone  float64 `json:"queued_to_completed_ms"`
	DoneToGone    float64 `json:"completed_to_deleted_ms"`
}

// rdStats summarises one distribution, in milliseconds.
type rdStats struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	P90    float64 `json:"p90"`
}

// rdTimings is what a test reports for its provider.
type rdTimings struct {
	Provider         string  `json:"provider"`
	Runs             int     `json:"runs"`
	Mode             string  `json:"mode"`
	JobDurationMS    int64   `json:"job_duration_ms"`
	QueuedToCreated  rdStats `json:"queued_to_created_ms"`
	QueuedToCallback rdStats `json:"queued_to_first_callback_ms"`
	QueuedToIdle     rdStats `json:"queued_to_idle_ms"`
	QueuedToStart    rdStats `json:"queued_to_started_ms"`
	QueuedToDone     rdStats `json:"queued_to_completed_ms"`
	DoneToGone       rdStats `json:"completed_to_deleted_ms"`
	WallSeconds      float64 `json:"wall_seconds"`
	// LoadAvg is /proc/loadavg's 1-minute load before and after the runs: the timings
	// are only comparable between runs on an otherwise idle machine.
	LoadAvg [2]string `json:"load_avg_1m_before_after"`
	PerRun  []rdRun   `json:"per_run"`
}

// rdEnv is one running setup: simulator, server, API client and the pool.
type rdEnv struct {
	t       *testing.T
	b       rdBackend
	dir     string
	d       *testbed.Bed // the simulator, the server and the API client
	idle    *rdIdleRecorder
	labels  []string
	poolID  string
	logPath string
	exe     string // provider executable
	cfgPath string // provider config
}

// rdSkip skips the test unless the real daemons are requested.
func rdSkip(t *testing.T) {
	t.Helper()
	if os.Getenv(rdDaemonsEnv) != "1" {
		t.Skip(rdSkipMessage)
	}
	if testing.Short() {
		t.Skip("end-to-end daemon test: not in -short mode")
	}
}

// rdRuns is the number of jobs to run.
func rdRuns(t *testing.T) int {
	t.Helper()
	s := os.Getenv(rdRunsEnv)
	if s == "" {
		return rdDefaultRuns
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", rdRunsEnv, s)
	}
	return n
}

// runRealDaemonE2E runs the whole end-to-end test for one backend.
func runRealDaemonE2E(t *testing.T, b rdBackend) {
	if !rdHostHasAddr(b.bridgeIP) {
		t.Fatalf("bridge address %s is not on this host: is the %s daemon set up (scripts/daemons/setup.sh)?", b.bridgeIP, b.name)
	}
	runs := rdRuns(t)
	e := newRDEnv(t, b)
	loadBefore := rdLoadAvg()
	start := time.Now()
	var results []rdRun
	for i := range runs {
		r, err := e.runOne(t.Context())
		if err != nil {
			e.fail("run %d of %d: %v", i+1, runs, err)
		}
		t.Logf("%s run %2d: job %d runner %s: queued→created %.2fs, →first callback %.2fs, →idle %.2fs, →started %.2fs, →completed %.2fs, completed→deleted %.2fs",
			b.name, i+1, r.Job, r.Runner, r.QueuedToCreated/1000, r.QueuedToCallback/1000, r.QueuedToIdle/1000, r.QueuedToStart/1000, r.QueuedToDone/1000, r.DoneToGone/1000)
		results = append(results, r)
	}
	wall := time.Since(start)
	e.checkNothingLeft(t.Context())
	tm := rdSummarize(b.name, results, wall)
	tm.LoadAvg = [2]string{loadBefore, rdLoadAvg()}
	t.Logf("%s: %d jobs one after another (min idle 0, a fresh instance each): queued→idle median %.2fs (min %.2fs, p90 %.2fs, max %.2fs); queued→created median %.2fs, →first callback %.2fs; queued→started median %.2fs; completed→deleted median %.2fs; wall %.1fs; load average %s → %s",
		b.name, tm.Runs, tm.QueuedToIdle.Median/1000, tm.QueuedToIdle.Min/1000, tm.QueuedToIdle.P90/1000, tm.QueuedToIdle.Max/1000,
		tm.QueuedToCreated.Median/1000, tm.QueuedToCallback.Median/1000,
		tm.QueuedToStart.Median/1000, tm.DoneToGone.Median/1000, tm.WallSeconds, tm.LoadAvg[0], tm.LoadAvg[1])
	if err := rdWriteTimings(os.Getenv(rdTimingsEnv), tm); err != nil {
		t.Error(err)
	}
}

// rdLoadAvg returns the 1-minute load average ("" where /proc/loadavg is missing).
func rdLoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// rdHostHasAddr reports whether ip is one of this host's interface addresses.
func rdHostHasAddr(ip string) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.String() == ip {
			return true
		}
	}
	return false
}

// newRDEnv builds the provider and the stand-in runner, starts the simulator and the
// server on the bridge address and sets up the repository and one pool (min idle 0).
// Everything is stopped and removed when the test ends.
func newRDEnv(t *testing.T, b rdBackend) *rdEnv {
	t.Helper()
	dir := t.TempDir()
	e := &rdEnv{t: t, b: b, dir: dir, labels: []string{"self-hosted", "linux", "e2e-" + b.name}}
	e.exe = providertest.Build(t, b.pkg)
	e.cfgPath = filepath.Join(dir, b.name+".toml")
	if err := os.WriteFile(e.cfgPath, []byte(b.config), 0o600); err != nil {
		t.Fatal(err)
	}
	tarball := rdStandinTarball(t, dir)
	e.idle = &rdIdleRecorder{idle: map[string]rdIdle{}}
	e.startBed(tarball)
	e.startServer()
	e.setup()
	return e
}

// rdStandinTarball builds the stand-in runner statically (it runs inside the
// instances) and returns the runner archive around it.
func rdStandinTarball(t *testing.T, dir string) []byte {
	t.Helper()
	bin := filepath.Join(dir, "garrison-standin-runner")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/garrison-ci/garrison/cmd/garrison-standin-runner")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in runner: %v\n%s", err, out)
	}
	tarball, err := standin.Tarball(bin)
	if err != nil {
		t.Fatal(err)
	}
	return tarball
}

// startBed starts a bed whose forge simulator serves on the bridge address (the runner
// download URL and the runners' JIT configuration point at it), with the runner's
// acquire calls gated, the static stand-in runner's archive as the runner download and
// the repository rdRepo.
func (e *rdEnv) startBed(tarball []byte) {
	t := e.t
	bed, err := testbed.New(testbed.Options{BaseDir: e.dir, SimAddr: net.JoinHostPort(e.b.bridgeIP, "0"),
		SimWrap: func(next http.Handler) http.Handler { return &rdAcquireGate{next: next, idle: e.idle} }})
	if err != nil {
		t.Fatalf("starting the simulator on the bridge address: %v", err)
	}
	e.d, e.logPath = bed, bed.Path("server.log")
	t.Cleanup(e.stop)
	bed.Sim.SetRunnerTarball(tarball)
	if err := bed.Sim.AddRepo(rdRepo); err != nil {
		t.Fatal(err)
	}
}

// startServer wires the server with the real provider and serves it on the bridge
// address; the status callbacks are recorded on their way in.
func (e *rdEnv) startServer() {
	t := e.t
	cfgFile := filepath.Join(e.dir, "config.toml")
	cfgText := fmt.Sprintf(`[logging]
log_level = "debug"

[[provider]]
name = %q
provider_type = "external"
description = "real %s daemon"
  [provider.external]
  provider_executable = %q
  config_file = %q
  interface_version = "v0.1.1"
`, e.b.name, e.b.name, e.exe, e.cfgPath)
	if err := os.WriteFile(cfgFile, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	err := e.d.StartServer(context.WithoutCancel(t.Context()), testbed.ServerOptions{ConfigFile: cfgFile,
		Addr: net.JoinHostPort(e.b.bridgeIP, "0"),
		Wrap: func(next http.Handler) http.Handler {
			e.idle.next = next
			return e.idle
		}})
	if err != nil {
		t.Fatalf("starting the server on the bridge address: %v", err)
	}
}

// stop stops the server and the simulator, then removes whatever the provider still has
// for this controller (the test's own checks ran before), and shows the server log on
// failure.
func (e *rdEnv) stop() {
	t := e.t
	if err := e.d.Close(true); err != nil { // the directory goes with t.TempDir
		t.Errorf("stopping the server and the simulator: %v", err)
	}
	if e.d.ControllerID != "" {
		p, err := providerexec.New(providerexec.Config{Name: e.b.name, Executable: e.exe, ConfigFile: e.cfgPath,
			InterfaceVersion: provider.InterfaceV011, ControllerID: e.d.ControllerID, ExecTimeout: 2 * time.Minute})
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			err = p.RemoveAllInstances(ctx, provider.Target{PoolID: e.poolID})
			cancel()
		}
		if err != nil {
			t.Errorf("removing the controller's instances: %v", err)
		}
	}
	if t.Failed() {
		t.Logf("server log (tail):\n%s", rdFileTail(e.logPath, 30000))
	}
}

// rdFileTail returns the last n bytes of a file.
func rdFileTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// setup does what an administrator would through the API: first run, controller URLs
// on the bridge address, endpoint, credentials, repository, webhook and the pool.
func (e *rdEnv) setup() {
	t := e.t
	ctx := t.Context()
	if err := e.d.Login(ctx); err != nil {
		t.Fatal(err)
	}
	hookURL, err := e.d.SetControllerURLs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owner, name, _ := strings.Cut(rdRepo, "/")
	simURL := e.d.Sim.URL()
	if _, err := e.d.API.CreateGithubEndpoint(ctx, apiv1.CreateGithubEndpointParams{Name: testbed.Endpoint,
		Description: "forge simulator", BaseURL: simURL, APIBaseURL: simURL + "/api/v3/",
		UploadBaseURL: simURL + "/api/uploads/"}); err != nil {
		t.Fatalf("creating the endpoint: %v", err)
	}
	if _, err := e.d.API.CreateCredentials(ctx, apiclient.GitHub, apiv1.CreateCredentialsParams{Name: testbed.Credentials,
		Description: "simulator PAT", Endpoint: testbed.Endpoint, AuthType: "pat",
		PAT: apiv1.GithubPAT{OAuth2Token: e.d.PAT}}); err != nil {
		t.Fatalf("adding the credentials: %v", err)
	}
	secret := testbed.RandomToken(24)
	repo, err := e.d.API.CreateRepository(ctx, apiv1.CreateRepoParams{Owner: owner, Name: name,
		CredentialsName: testbed.Credentials, WebhookSecret: secret})
	if err != nil {
		t.Fatalf("adding the repository: %v", err)
	}
	if _, err := e.d.Sim.AddHook("repos/"+rdRepo, hookURL, secret, garrison.GitHub); err != nil {
		t.Fatalf("adding the webhook: %v", err)
	}
	pool, err := e.d.API.CreatePool(ctx, apiclient.Repositories, repo.ID, apiv1.CreatePoolParams{
		ProviderName: e.b.name, MaxRunners: 2, MinIdleRunners: 0, Image: e.b.image, Flavor: e.b.flavor,
		OSType: "linux", OSArch: "amd64", Tags: e.labels, Enabled: true, RunnerBootstrapTimeout: 5,
		ExtraSpecs: json.RawMessage(e.b.specs),
	})
	if err != nil {
		t.Fatalf("creating the pool: %v", err)
	}
	e.poolID = pool.ID
	t.Logf("%s: server %s, simulator %s, controller %s, pool %s (image %s)", e.b.name, e.d.URL, simURL, e.d.ControllerID, pool.ID, e.b.image)
}

// fail reports a fatal failure with what garrison and the forge show.
func (e *rdEnv) fail(format string, args ...any) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b strings.Builder
	if insts, err := e.d.API.ListInstances(ctx); err == nil {
		for _, in := range insts {
			full, _ := e.d.API.GetInstance(ctx, in.Name)
			fmt.Fprintf(&b, "  instance %s: status %s runner %s\n", in.Name, in.Status, in.RunnerStatus)
			for _, m := range full.StatusMessages {
				fmt.Fprintf(&b, "    %s %s\n", m.CreatedAt.Format(time.TimeOnly), m.Message)
			}
		}
	}
	for _, j := range e.d.Sim.Jobs() {
		fmt.Fprintf(&b, "  job %d: %s %s runner %q\n", j.ID, j.Status, j.Conclusion, j.RunnerName)
	}
	for _, r := range e.d.Sim.Runners() {
		fmt.Fprintf(&b, "  forge runner %s (id %d)\n", r.Name, r.ID)
	}
	e.t.Fatalf(format+"\n%s", append(args, b.String())...)
}

// runOne queues one job and waits until it completed and garrison deleted its
// instance; it returns the job's timings.
func (e *rdEnv) runOne(ctx context.Context) (rdRun, error) {
	queued := time.Now()
	id, err := e.d.Sim.QueueJobFor(rdRepo, rdJobDuration, e.labels...)
	if err != nil {
		return rdRun{}, fmt.Errorf("queueing a job: %w", err)
	}
	e.d.Queued[id] = queued
	var created time.Time // first seen running in garrison: the provider's create returned
	job, err := rdWait(ctx, rdJobTimeout, "job completed", func() (forgesim.Job, bool) {
		if created.IsZero() {
			if insts, err := e.d.API.ListInstances(ctx); err == nil && len(insts) == 1 && insts[0].Status == "running" {
				created = time.Now()
			}
		}
		j, _ := e.d.Sim.Job(id)
		return j, j.Status == "completed"
	})
	if err != nil {
		return rdRun{}, fmt.Errorf("job %d: %w", id, err)
	}
	done := time.Now()
	if job.Conclusion != "success" {
		return rdRun{}, fmt.Errorf("job %d completed with conclusion %q, want success", id, job.Conclusion)
	}
	if _, err := rdWait(ctx, rdGoneTimeout, "instance "+job.RunnerName+" deleted", func() (string, bool) {
		insts, err := e.d.API.ListInstances(ctx)
		return fmt.Sprint(len(insts), err), err == nil && len(insts) == 0
	}); err != nil {
		return rdRun{}, err
	}
	gone := time.Now()
	idle, ok := e.idle.idleAt(job.RunnerName)
	if !ok || !idle.accepted {
		return rdRun{}, fmt.Errorf("runner %s: idle callback received %t, accepted %t", job.RunnerName, ok, idle.accepted)
	}
	started, ok := e.d.Starts.StartedAt(id)
	if !ok {
		return rdRun{}, fmt.Errorf("job %d was never reported started", id)
	}
	if created.IsZero() || created.After(idle.at) {
		created = idle.at // the poll missed it
	}
	return rdRun{Job: id, Runner: job.RunnerName, QueuedToCreated: rdMS(created.Sub(queued)),
		QueuedToCallback: rdMS(idle.first.Sub(queued)), QueuedToIdle: rdMS(idle.at.Sub(queued)),
		QueuedToStart: rdMS(started.Sub(queued)), QueuedToDone: rdMS(done.Sub(queued)), DoneToGone: rdMS(gone.Sub(done))}, nil
}

func rdMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// checkNothingLeft asserts that garrison has no instance, the daemon no instance
// tagged with the controller id and the forge no runner.
func (e *rdEnv) checkNothingLeft(ctx context.Context) {
	t := e.t
	if insts, err := e.d.API.ListInstances(ctx); err != nil || len(insts) != 0 {
		t.Errorf("garrison instances left: %d (%v)", len(insts), err)
	}
	left, err := e.b.leftovers(ctx, e.d.ControllerID)
	if err != nil {
		t.Errorf("listing the daemon's instances: %v", err)
	} else if len(left) != 0 {
		t.Errorf("%s instances tagged with controller %s left: %v", e.b.name, e.d.ControllerID, left)
	}
	if rs := e.d.Sim.Runners(); len(rs) != 0 {
		t.Errorf("forge runners left: %d (%+v)", len(rs), rs)
	}
	for id := range e.d.Queued {
		if j, _ := e.d.Sim.Job(id); j.Status != "completed" || j.Conclusion != "success" {
			t.Errorf("job %d: %s/%s, want completed/success", id, j.Status, j.Conclusion)
		}
	}
}

// rdWait polls cond every 100 ms until it holds, timeout passes or ctx ends.
func rdWait[T any](ctx context.Context, timeout time.Duration, what string, cond func() (T, bool)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		v, ok := cond()
		if ok {
			return v, nil
		}
		select {
		case <-ctx.Done():
			return v, fmt.Errorf("waiting for %s: %w (last: %v)", what, ctx.Err(), v)
		case <-tick.C:
		}
	}
}

// rdSummarize computes the statistics of the runs.
func rdSummarize(name string, runs []rdRun, wall time.Duration) rdTimings {
	pick := func(f func(rdRun) float64) rdStats {
		v := make([]float64, 0, len(runs))
		for _, r := range runs {
			v = append(v, f(r))
		}
		return rdStatsOf(v)
	}
	return rdTimings{
		Provider: name, Runs: len(runs), Mode: "sequential", JobDurationMS: rdJobDuration.Milliseconds(),
		QueuedToCreated:  pick(func(r rdRun) float64 { return r.QueuedToCreated }),
		QueuedToCallback: pick(func(r rdRun) float64 { return r.QueuedToCallback }),
		QueuedToIdle:     pick(func(r rdRun) float64 { return r.QueuedToIdle }),
		QueuedToStart:    pick(func(r rdRun) float64 { return r.QueuedToStart }),
		QueuedToDone:     pick(func(r rdRun) float64 { return r.QueuedToDone }),
		DoneToGone:       pick(func(r rdRun) float64 { return r.DoneToGone }),
		WallSeconds:      math.Round(wall.Seconds()*10) / 10,
		PerRun:           runs,
	}
}

// rdStatsOf returns the median (mean of the middle two for an even count), min, max and
// nearest-rank p90 of v.
func rdStatsOf(v []float64) rdStats {
	if len(v) == 0 {
		return rdStats{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	p90 := s[max(0, int(math.Ceil(0.9*float64(n)))-1)]
	return rdStats{Median: med, Min: s[0], Max: s[n-1], P90: p90}
}

// rdWriteTimings merges tm into the JSON object in file, under the provider's name.
func rdWriteTimings(file string, tm rdTimings) error {
	if file == "" {
		return nil
	}
	all := map[string]json.RawMessage{}
	if b, err := os.ReadFile(file); err == nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &all); err != nil {
			return fmt.Errorf("%s: existing content is not a JSON object: %w", file, err)
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	b, err := json.Marshal(tm)
	if err != nil {
		return err
	}
	all[tm.Provider] = b
	out, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(out, '\n'), 0o644)
}

// rdIdleRecorder passes requests to the server and notes when each instance's install
// script reported "idle" (its last step, after the runner was registered and started;
// the instance is named by the token's claims) and whether garrison accepted it. (Had
// the runner taken its job first, garrison would refuse the late callback: the runner is
// active and its token spent. rdAcquireGate prevents that.)
type rdIdleRecorder struct {
	next http.Handler

	mu   sync.Mutex // guards idle
	idle map[string]rdIdle
}

// rdIdle is what an instance's status callbacks showed.
type rdIdle struct {
	first    time.Time // when its first status callback (any status) was answered
	at       time.Time // when garrison answered the idle callback
	accepted bool      // garrison answered 2xx
}

func (r *rdIdleRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || !strings.HasSuffix(strings.TrimSuffix(req.URL.Path, "/"), "/callbacks/status") {
		r.next.ServeHTTP(w, req)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	sw := &rdStatusWriter{ResponseWriter: w, status: http.StatusOK}
	r.next.ServeHTTP(sw, req)
	at := time.Now()
	var u struct {
		Status string `json:"status"`
	}
	name := rdTokenName(req.Header.Get("Authorization"))
	if json.Unmarshal(body, &u) != nil || name == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.idle[name]
	if i.first.IsZero() {
		i.first = at
	}
	if u.Status == "idle" && i.at.IsZero() {
		i.at, i.accepted = at, sw.status/100 == 2
	}
	r.idle[name] = i
}

// idleAt returns instance name's first idle callback, if any.
func (r *rdIdleRecorder) idleAt(name string) (rdIdle, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.idle[name]
	return i, !i.at.IsZero()
}

// rdAcquirePath matches the simulator route a stand-in runner polls for a job.
var rdAcquirePath = regexp.MustCompile(`^/_sim/runners/([^/]+)/acquire$`)

// rdAcquireGate serves the forge simulator but answers "no job" (204) to a runner's
// job polls until garrison accepted that runner's idle callback. The stand-in runner
// starts polling the moment run.sh starts, a little before the install script reports
// idle, and a job is always waiting here (min idle 0: the job made the instance), so
// without the gate the runner takes the job first and never shows as idle. On a real
// forge the job assignment takes far longer than that callback.
type rdAcquireGate struct {
	next http.Handler
	idle *rdIdleRecorder
}

func (g *rdAcquireGate) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if m := rdAcquirePath.FindStringSubmatch(req.URL.Path); m != nil && req.Method == http.MethodPost {
		if i, ok := g.idle.idleAt(m[1]); !ok || !i.accepted {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	g.next.ServeHTTP(w, req)
}

// rdTokenName reads the instance name from a bearer JWT's claims without
// verifying it (the server behind already did).
func rdTokenName(auth string) string {
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return ""
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(b, &c) != nil {
		return ""
	}
	return c.Name
}

// rdStatusWriter remembers the status code of a response.
type rdStatusWriter struct {
	http.ResponseWriter
	status int
}

func (w *rdStatusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

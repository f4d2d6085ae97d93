package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// replicaTestEnv enables the replica tests: several garrison server processes on one
// PostgreSQL database (GARRISON_TEST_POSTGRES_DSN, a role that may create databases).
const (
	replicaTestEnv = "GARRISON_REPLICA_TEST"
	postgresDSNEnv = "GARRISON_TEST_POSTGRES_DSN"
)

// replicaPool is a pool the replica tests add next to the testbed's: jobs with its label
// can run on it only.
type replicaPool struct {
	label   string
	max     uint
	minIdle uint
}

// replicaExtraPools are the pools added to the testbed's two and its scale set.
var replicaExtraPools = []replicaPool{{"p1", 4, 0}, {"p2", 4, 0}, {"p3", 3, 1}}

// replicaLabels are the runs-on label sets of the replica tests' jobs, used in turn:
// the testbed's (its two pools, either of them, its scale set) and the extra pools'.
func replicaLabels() [][]string {
	out := slices.Clone(testbed.DemoLabels)
	for _, p := range replicaExtraPools {
		out = append(out, []string{"self-hosted", "linux", p.label})
	}
	return out
}

// replicaRun is a testbed with N garrison servers as child processes sharing a fresh
// PostgreSQL database behind a round-robin load balancer (the bed's URL).
type replicaRun struct {
	*crashRun // its queue, ledgerSettled and logInstances; srv is unused
	reps      *testbed.Replicas
	jit       *testbed.JITCounter
	n         int
}

// replicaShape is what newReplicaRun varies.
type replicaShape struct {
	replicas  int
	leaseTTL  time.Duration
	bootDelay time.Duration
}

// skipReplicas skips unless GARRISON_REPLICA_TEST=1 and returns the PostgreSQL DSN.
func skipReplicas(t *testing.T) string {
	t.Helper()
	skipE2E(t)
	if os.Getenv(replicaTestEnv) != "1" {
		t.Skipf("several server processes on PostgreSQL for minutes; set %s=1", replicaTestEnv)
	}
	dsn := os.Getenv(postgresDSNEnv)
	if dsn == "" {
		t.Fatalf("%s=1 needs %s (a postgres:// URL of a role that may create databases)", replicaTestEnv, postgresDSNEnv)
	}
	return dsn
}

// newReplicaRun creates a fresh database (dropped at the end), writes the testbed, starts
// the replicas and sets up the repository, its pools and its scale set through the load
// balancer.
func newReplicaRun(t *testing.T, dsn string, s replicaShape) *replicaRun {
	t.Helper()
	ctx := t.Context()
	db, drop, err := postgres.CreateScratchDatabase(ctx, dsn, "garrison_repl_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	r := &replicaRun{n: s.replicas}
	b, err := testbed.New(testbed.Options{JobDuration: 500 * time.Millisecond, BootDelay: s.bootDelay,
		BaseDir: t.TempDir(), Tools: testTools(t), ScaleDownGrace: 2 * time.Second,
		SimWrap: func(h http.Handler) http.Handler { r.jit = testbed.NewJITCounter(h); return r.jit },
		// A webhook that reached a replica as it died is found by the missed-webhook sweep.
		Reconcile: map[string]time.Duration{"sweep_interval": replicaSweepInterval, "sweep_start_delay": 2 * time.Second,
			"resync_interval": 10 * time.Second,
			// A create lost with a replica backs its pool off: retried within seconds here.
			"retry_backoff": time.Second, "max_retry_backoff": 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	r.crashRun = &crashRun{Bed: b}
	t.Cleanup(func() { r.close(t) })
	r.reps, err = b.StartReplicas(ctx, testbed.ReplicaOptions{N: s.replicas, Garrison: helperTools(t), DSN: db, LeaseTTL: s.leaseTTL})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Setup(ctx); err != nil {
		t.Fatalf("setting up: %v", err)
	}
	r.addPools(t)
	return r
}

// addPools adds replicaExtraPools to the testbed's repository.
func (r *replicaRun) addPools(t *testing.T) {
	t.Helper()
	repos, err := r.API.ListRepositories(t.Context(), apiclient.RepoFilter{})
	if err != nil || len(repos) != 1 {
		t.Fatalf("listing the repository: %v (%d)", err, len(repos))
	}
	for _, p := range replicaExtraPools {
		pool, err := r.API.CreatePool(t.Context(), apiclient.Repositories, repos[0].ID, apiv1.CreatePoolParams{
			ProviderName: testbed.ProviderName, MaxRunners: p.max, MinIdleRunners: p.minIdle, Image: "demo",
			Flavor: p.label, OSType: "linux", OSArch: "amd64", Tags: []string{"self-hosted", "linux", p.label}, Enabled: true,
		})
		if err != nil {
			t.Fatalf("creating pool %s: %v", p.label, err)
		}
		r.PoolIDs = append(r.PoolIDs, pool.ID)
	}
}

// close kills the replicas, logs the ends of their logs on failure, and removes the bed.
func (r *replicaRun) close(t *testing.T) {
	if t.Failed() {
		r.logInstances(t)
	}
	if r.reps != nil {
		if err := r.reps.Close(); err != nil {
			t.Errorf("closing the replicas: %v", err)
		}
	}
	if t.Failed() {
		r.keepLogs(t)
		for i := range r.n {
			t.Logf("replica %d log, warnings and errors (last 80):\n%s", i, problemLines(r.ReplicaLog(i), 80))
		}
	}
	if err := r.Close(false); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// queueMixed queues n jobs with replicaLabels in turn and random short durations.
func (r *replicaRun) queueMixed(t *testing.T, rng *rand.Rand, n int) []int64 {
	t.Helper()
	labels := replicaLabels()
	ids := make([]int64, 0, n)
	for range n {
		ls := labels[len(r.Queued)%len(labels)]
		d := 300*time.Millisecond + time.Duration(rng.Int64N(int64(700*time.Millisecond)))
		id, err := r.Sim.QueueJobFor(testbed.Repo, d, ls...)
		if err != nil {
			t.Fatalf("queueing a job: %v", err)
		}
		r.Queued[id] = time.Now()
		ids = append(ids, id)
	}
	return ids
}

// waitCompleted waits until the forge completed every job of ids.
func (r *replicaRun) waitCompleted(t *testing.T, ids []int64, limit time.Duration) {
	t.Helper()
	eventuallyWithin(t, limit, "every job completed", func() (bool, string) {
		done := r.CompletedJobs(ids)
		return done == len(ids), fmt.Sprintf("%d of %d jobs completed; %s; not completed: %s",
			done, len(ids), r.RunnerCounts(t.Context()), r.describeUnfinished(ids))
	})
}

// served is how the jobs were served, from the forge's side.
type served struct {
	jobs, runners   int            // jobs completed, distinct runners that ran them
	jitNames        int            // runner names the forge handed a JIT config to
	duplicateJIT    map[string]int // runner names with more than one JIT config
	sharedRunners   []string       // runners that ran more than one job
	unserved        []int64        // jobs not completed, or completed without a runner
	notByGarrison   []string       // runners of jobs with no JIT config from garrison
	instancesPerJob float64
}

// servedOnce checks, from the forge's side, that every job of ids was run exactly once:
// completed by one runner, no runner ran two jobs, every runner got exactly one JIT
// config (an instance created twice would have two).
func (r *replicaRun) servedOnce(ids []int64) served {
	jit := r.jit.Counts()
	s := served{jitNames: len(jit), duplicateJIT: map[string]int{}}
	for name, n := range jit {
		if n > 1 {
			s.duplicateJIT[name] = n
		}
	}
	byRunner := map[string]int{}
	for _, id := range ids {
		j, ok := r.Sim.Job(id)
		if !ok || j.Status != "completed" || j.RunnerName == "" {
			s.unserved = append(s.unserved, id)
			continue
		}
		s.jobs++
		byRunner[j.RunnerName]++
		if jit[j.RunnerName] == 0 {
			s.notByGarrison = append(s.notByGarrison, j.RunnerName)
		}
	}
	for name, n := range byRunner {
		if n > 1 {
			s.sharedRunners = append(s.sharedRunners, fmt.Sprintf("%s ran %d", name, n))
		}
	}
	s.runners = len(byRunner)
	if len(ids) > 0 {
		s.instancesPerJob = float64(len(jit)) / float64(len(ids))
	}
	return s
}

// check fails the test for every way s is not "served exactly once". With strictJIT a
// runner name may have got one JIT config only; without, more are retries (the forge
// refuses a second live runner of one name, so a create retried after a lost attempt
// registers the name again only once the first registration is gone).
func (s served) check(t *testing.T, jobs int, strictJIT bool) {
	t.Helper()
	if len(s.unserved) > 0 || s.jobs != jobs {
		t.Errorf("%d of %d jobs served; not: %v", s.jobs, jobs, s.unserved)
	}
	if strictJIT && len(s.duplicateJIT) > 0 {
		t.Errorf("runners with more than one JIT config (an instance created twice): %v", s.duplicateJIT)
	}
	if len(s.sharedRunners) > 0 {
		t.Errorf("runners that ran more than one job: %v", s.sharedRunners)
	}
	if len(s.notByGarrison) > 0 {
		t.Errorf("jobs run by runners garrison made no JIT config for: %v", s.notByGarrison)
	}
}

// garrisonForgeCalls counts the forge calls made with the bed's credentials (garrison's,
// not the runners') since the last ResetCalls.
func (r *replicaRun) garrisonForgeCalls() (total int, byRoute map[string]int) {
	byRoute = map[string]int{}
	for k, n := range r.Sim.Calls() {
		if k.Credential != r.PAT {
			continue
		}
		total += n
		byRoute[k.Route] += n
	}
	return total, byRoute
}

// scaleDownAll sets min idle 0 on every pool and scale set and disables them: garrison
// must then remove every runner by itself.
func (r *replicaRun) scaleDownAll(t *testing.T) {
	t.Helper()
	r.disablePools(t)
	zero, off := uint(0), false
	for _, id := range r.ScaleSetIDs {
		if _, err := r.API.UpdateScaleSet(t.Context(), id, apiv1.UpdateScaleSetParams{MinIdleRunners: &zero, Enabled: &off}); err != nil {
			t.Fatalf("scaling scale set %d down: %v", id, err)
		}
	}
}

// instanceNamesUnique reports garrison instance names that appear twice (never expected:
// the store keys instances by name).
func (r *replicaRun) instanceNamesUnique(t *testing.T) []string {
	t.Helper()
	insts, err := r.API.ListInstances(t.Context())
	if err != nil {
		t.Fatalf("listing instances: %v", err)
	}
	seen, dup := map[string]bool{}, []string(nil)
	for _, in := range insts {
		if seen[in.Name] {
			dup = append(dup, in.Name)
		}
		seen[in.Name] = true
	}
	return dup
}

// describeUnfinished lists the jobs of ids the forge has not completed, with their labels,
// status and runner.
func (r *replicaRun) describeUnfinished(ids []int64) string {
	var out []string
	for _, id := range ids {
		if j, ok := r.Sim.Job(id); ok && j.Status != "completed" {
			out = append(out, fmt.Sprintf("%d %v %s %s", id, j.Labels, j.Status, j.RunnerName))
		}
	}
	return strings.Join(out, "; ")
}

// problemLines returns the last n WARN and ERROR lines of a server log.
func problemLines(path string, n int) string {
	b, _ := os.ReadFile(path)
	var out []string
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			out = append(out, line)
		}
	}
	return strings.Join(out[max(0, len(out)-n):], "")
}

// replicaLogsEnv names a directory the replica tests copy the replicas' logs to when
// they fail.
const replicaLogsEnv = "GARRISON_REPLICA_LOGS"

// keepLogs copies the replicas' logs to $GARRISON_REPLICA_LOGS/<test>/, when set.
func (r *replicaRun) keepLogs(t *testing.T) {
	dir := os.Getenv(replicaLogsEnv)
	if dir == "" {
		return
	}
	dir = filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Log(err)
		return
	}
	for i := range r.n {
		if b, err := os.ReadFile(r.ReplicaLog(i)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, filepath.Base(r.ReplicaLog(i))), b, 0o600)
		}
	}
	t.Logf("replica logs kept in %s", dir)
}

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// crashTestEnv enables TestCrashRestart (it takes about three minutes);
// GARRISON_CRASH_SEED replays one run's kill schedule.
const (
	crashTestEnv = "GARRISON_CRASH_TEST"
	crashSeedEnv = "GARRISON_CRASH_SEED"
)

// The shape of the crash run.
const (
	crashKills       = 18 // while jobs are queued and runners made
	crashDownKills   = 4  // while the pools scale down
	crashJobsUpFront = 12
	crashJobsPerKill = 2 // queued while the server is down: their webhooks are lost
	crashWaveKills   = 12
	crashMinInterval = 300 * time.Millisecond
	crashMaxInterval = 2 * time.Second
	// crashBootDelay makes provisioning slow (creates that take seconds), so that kills
	// land in the middle of CreateInstance calls.
	crashBootDelay = time.Second
)

// TestCrashRestart queues a burst of jobs with mixed labels and kills the server
// (SIGKILL) at random moments, restarting it on the same data directory and port each
// time, while the simulation provider's boot processes (slow: creates take seconds) and
// the stand-in runners go on. Some jobs are queued while the server is down, so their
// webhooks are lost: garrison's own missed-webhook sweep must find them — the test
// redelivers nothing. Then every job must have run and the ledger must agree with the
// forge. Then the pools are scaled down (min idle 0, disabled) and the server is killed
// a few more times while it scales down; garrison must clean up by itself — the test
// deletes nothing — leaving nothing: no instance in the store or in the provider, no
// runner in the forge, no boot or runner process.
func TestCrashRestart(t *testing.T) {
	rng := crashStart(t, "four")
	c := newCrashRun(t)
	ctx := t.Context()

	start := time.Now()
	ids := c.queue(t, rng, crashJobsUpFront)
	lost := 0
	for i := range crashKills {
		c.killAndRestart(t, rng, func() {
			if i < crashWaveKills {
				ids = append(ids, c.queue(t, rng, crashJobsPerKill)...)
				lost += crashJobsPerKill
			}
		})
	}
	t.Logf("killed and restarted the server %d times in %s; %d jobs queued, %d of them while it was down (webhooks lost)",
		crashKills, time.Since(start).Round(time.Second), len(ids), lost)

	eventuallyWithin(t, 4*time.Minute, "every job completed", func() (bool, string) {
		done := c.CompletedJobs(ids)
		return done == len(ids), fmt.Sprintf("%d of %d jobs completed; %s", done, len(ids), c.RunnerCounts(ctx))
	})
	t.Logf("every job completed %s after the first was queued", time.Since(start).Round(time.Second))
	eventually(t, "the ledger to agree with the forge", func() (bool, string) { return c.ledgerSettled(t, ids) })
	c.disablePools(t)
	for range crashDownKills {
		c.killAndRestart(t, rng, nil)
	}
	// Deletes interrupted by the kills are retried with backoff after the last restart:
	// give them a few rounds (a wait, not a speed check).
	expectNoLeaks(t, c.Bed, 5*time.Minute)
	t.Logf("%d kills in all; scaled down by itself, nothing left, %s after the first job was queued",
		crashKills+crashDownKills, time.Since(start).Round(time.Second))
	if err := c.srv.Stop(); err != nil {
		t.Errorf("final server stop: %v", err)
	}
}

// killAndRestart waits a random moment, kills the server, runs whileDown (if any) and
// starts the server again.
func (c *crashRun) killAndRestart(t *testing.T, rng *rand.Rand, whileDown func()) {
	t.Helper()
	time.Sleep(crashMinInterval + time.Duration(rng.Int64N(int64(crashMaxInterval-crashMinInterval))))
	c.restart(t, whileDown)
}

// restart kills the server now, runs whileDown (if any) and starts the server again.
func (c *crashRun) restart(t *testing.T, whileDown func()) {
	t.Helper()
	c.srv.Kill()
	if whileDown != nil {
		whileDown()
	}
	if err := c.srv.Start(t.Context()); err != nil {
		t.Fatalf("restart: %v", err)
	}
}

// disablePools scales every pool down (min idle 0, disabled) through the API; the
// server must then remove every runner by itself.
func (c *crashRun) disablePools(t *testing.T) {
	t.Helper()
	zero, off := uint(0), false
	for _, id := range c.PoolIDs {
		if _, err := c.API.UpdatePool(t.Context(), id, apiv1.UpdatePoolParams{MinIdleRunners: &zero, Enabled: &off}); err != nil {
			t.Fatalf("scaling pool %s down: %v", id, err)
		}
	}
}

// crashStart skips a crash test unless GARRISON_CRASH_TEST=1 (it takes about that many
// minutes), and returns the random source of its kill schedule.
func crashStart(t *testing.T, minutes string) *rand.Rand {
	t.Helper()
	skipE2E(t)
	if os.Getenv(crashTestEnv) != "1" {
		t.Skipf("takes about %s minutes; set %s=1", minutes, crashTestEnv)
	}
	seed := crashSeed(t)
	return rand.New(rand.NewPCG(seed, seed))
}

// crashSeed returns the seed of the kill schedule, from GARRISON_CRASH_SEED or the clock,
// and logs it.
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(crashSeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", crashSeedEnv, s, err)
		}
		seed = v
	}
	t.Logf("kill schedule seed %d (replay with %s=%d)", seed, crashSeedEnv, seed)
	return seed
}

// crashRun is a testbed with the server as a child process.
type crashRun struct {
	*testbed.Bed
	srv *crashServer
}

// newCrashRun writes the testbed's files, starts the forge simulator and the server, and
// sets up the demo's repository and pools through the REST API.
func newCrashRun(t *testing.T) *crashRun {
	t.Helper()
	return startCrashRun(t, crashBedOptions(t), (*testbed.Bed).Setup)
}

// crashBedOptions are the testbed of the crash tests: slow creates, short jobs, a short
// scale-down grace and frequent missed-webhook sweeps.
func crashBedOptions(t *testing.T) testbed.Options {
	return testbed.Options{JobDuration: 500 * time.Millisecond, BootDelay: crashBootDelay,
		BaseDir: t.TempDir(), Tools: testTools(t), ScaleDownGrace: 2 * time.Second,
		// The missed-webhook sweep finds the jobs queued while the server was down.
		Reconcile: map[string]time.Duration{"sweep_interval": 5 * time.Second, "sweep_start_delay": 2 * time.Second}}
}

// startCrashRun makes the testbed of o, starts the forge simulator and the server, and
// runs setup against the server.
func startCrashRun(t *testing.T, o testbed.Options, setup func(*testbed.Bed, context.Context) error) *crashRun {
	t.Helper()
	b, err := testbed.New(o)
	if err != nil {
		t.Fatal(err)
	}
	c := &crashRun{Bed: b}
	c.srv = newCrashServer(t, b.Path("data"), freeAddr(t), b.ConfigFile(), b.Path("server.log"))
	t.Cleanup(func() { c.close(t) })
	if err := c.srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	b.URL = c.srv.URL
	if err := setup(b, t.Context()); err != nil {
		t.Fatalf("setting up: %v", err)
	}
	return c
}

// close kills the server, removes every simulated instance (killing its processes),
// stops the simulator and removes the testbed, logging the server's log on failure.
func (c *crashRun) close(t *testing.T) {
	if t.Failed() {
		c.logInstances(t)
	}
	c.srv.Kill()
	if t.Failed() {
		t.Logf("server log (tail, without the access log):\n%s", logTail(c.Path("server.log"), 30000))
	}
	if err := c.Close(false); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// logTail is the end of a server log, at most n bytes, without its access log lines.
func logTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, "msg=access_log") {
			kept = append(kept, l)
		}
	}
	out := strings.Join(kept, "\n")
	return out[max(0, len(out)-n):]
}

// queue queues n jobs with the demo's label sets in turn and random short durations.
func (c *crashRun) queue(t *testing.T, rng *rand.Rand, n int) []int64 {
	t.Helper()
	ids := make([]int64, 0, n)
	for range n {
		labels := testbed.DemoLabels[len(c.Queued)%len(testbed.DemoLabels)]
		ids = append(ids, c.queueLabeled(t, rng, 1, labels...)...)
	}
	return ids
}

// ledgerSettled reports whether garrison's job ledger shows none of ids as still queued
// or running, now that the forge completed them all.
func (c *crashRun) ledgerSettled(t *testing.T, ids []int64) (bool, string) {
	t.Helper()
	jobs, err := c.API.ListJobs(t.Context())
	if err != nil {
		return false, err.Error()
	}
	ours := map[int64]bool{}
	for _, id := range ids {
		ours[id] = true
	}
	var stale []string
	for _, j := range jobs {
		if (ours[j.ID] || ours[j.WorkflowJobID]) && unfinished(j) {
			stale = append(stale, fmt.Sprintf("%d=%s", j.ID, j.Status))
		}
	}
	return len(stale) == 0, fmt.Sprintf("ledger still shows %v", stale)
}

// unfinished reports whether the ledger shows a job as still to run or running.
func unfinished(j apiv1.Job) bool { return j.Status == "queued" || j.Status == "in_progress" }

// logInstances logs, for a failed run, garrison's instances with their last status
// message and the end of each simulated instance's boot log.
func (c *crashRun) logInstances(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if insts, err := c.API.ListInstances(ctx); err == nil {
		for _, in := range insts {
			last := ""
			if n := len(in.StatusMessages); n > 0 {
				last = in.StatusMessages[n-1].Message
			}
			t.Logf("instance %s %s: %s", in.Name, testbed.RunnerState(in), last)
		}
	}
	logs, _ := filepath.Glob(c.Path("sim-state", "boot", "*", "boot.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if len(b) > 1500 {
			b = b[len(b)-1500:]
		}
		t.Logf("%s:\n%s", l, b)
	}
}

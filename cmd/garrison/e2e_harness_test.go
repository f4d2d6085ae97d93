package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// e2eDeadline bounds every wait of the end-to-end tests: generous, since they only
// assert what happened, never how fast.
const e2eDeadline = 90 * time.Second

// e2eSlowEnv enables the end-to-end tests that wait out product timers of a minute or
// more (the bootstrap timeout, the create retry backoff).
const e2eSlowEnv = "GARRISON_E2E_SLOW"

// e2eEnv is one end-to-end environment assembled by the demo's own code: the forge
// simulator, an in-process server on a fresh data directory, and the simulation provider
// booting the stand-in runner through the real install script (all played by this test
// binary). The repository is set up with its webhook; the test adds the pools.
type e2eEnv struct {
	*demo
	repoID string
}

// helperSelf makes the demo's wrapper scripts run this test binary as garrison (see
// TestDemoHelperProcess).
func helperSelf(t *testing.T) selfCommand {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return selfCommand{env: []string{demoHelperEnv + "=1"}, argv: []string{exe, "-test.run=^TestDemoHelperProcess$", "--"}}
}

// skipE2E skips end-to-end tests in -short mode and on hosts that cannot boot the
// simulated instances.
func skipE2E(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end to end: a server, the forge simulator and many processes")
	}
	if err := checkDemoHost(); err != nil {
		t.Skip(err)
	}
}

// newE2E assembles an environment whose stand-in runners run each job for jobDuration.
// Cleanup stops everything, kills what is left and logs the server's log on failure.
func newE2E(t *testing.T, jobDuration time.Duration, tweak ...func(*demoOptions)) *e2eEnv {
	t.Helper()
	skipE2E(t)
	base := t.TempDir()
	o := demoOptions{jobs: 1, jobDuration: jobDuration, bootDelay: 50 * time.Millisecond,
		timeout: e2eDeadline, baseDir: base, self: helperSelf(t)}
	for _, f := range tweak {
		f(&o)
	}
	d, err := newDemo(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatalf("starting the demo assembly: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log (tail):\n%s", serverLogTail(base))
		}
		if err := d.close(false); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	e := &e2eEnv{demo: d}
	if err := e.setupRepo(t.Context()); err != nil {
		t.Fatal(err)
	}
	return e
}

// setupRepo logs in, sets the controller URLs and adds the repository and its webhook,
// as the demo's setup does, without the demo's pools.
func (e *e2eEnv) setupRepo(ctx context.Context) error {
	if err := e.login(ctx); err != nil {
		return err
	}
	hookURL, err := e.setControllerURLs(ctx)
	if err != nil {
		return err
	}
	repo, secret, err := e.addRepository(ctx)
	if err != nil {
		return err
	}
	if _, err := e.sim.AddHook("repos/"+demoRepo, hookURL, secret, garrison.GitHub); err != nil {
		return fmt.Errorf("adding the webhook: %w", err)
	}
	e.repoID = repo.ID
	return nil
}

// addPool creates an enabled pool of the simulation provider for the repository with the
// given tags; tweak adjusts the parameters further.
func (e *e2eEnv) addPool(t *testing.T, tags []string, minIdle, maxRunners uint, tweak func(*apiv1.CreatePoolParams)) apiv1.Pool {
	t.Helper()
	p := apiv1.CreatePoolParams{ProviderName: demoProviderName, MaxRunners: maxRunners, MinIdleRunners: minIdle,
		Image: "e2e-v1", Flavor: "small", OSType: "linux", OSArch: "amd64", Tags: tags, Enabled: true}
	if tweak != nil {
		tweak(&p)
	}
	pool, err := e.api.CreatePool(t.Context(), apiclient.Repositories, e.repoID, p)
	if err != nil {
		t.Fatalf("creating a pool: %v", err)
	}
	e.poolIDs = append(e.poolIDs, pool.ID)
	return pool
}

// poolInstances lists the pool's instances through the REST API.
func (e *e2eEnv) poolInstances(t *testing.T, poolID string) []apiv1.Instance {
	t.Helper()
	insts, err := e.api.ListPoolInstances(t.Context(), poolID, false)
	if err != nil {
		t.Fatalf("listing the pool's instances: %v", err)
	}
	return insts
}

// providerRecords names the instances the simulation provider holds for this controller.
func (e *e2eEnv) providerRecords(t *testing.T) map[string]bool {
	t.Helper()
	p, err := e.simProvider()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := p.ListInstances(t.Context(), "")
	if err != nil {
		t.Fatalf("listing the provider's instances: %v", err)
	}
	names := map[string]bool{}
	for _, r := range recs {
		names[r.Name] = true
	}
	return names
}

// forgeRunners names the runners registered in the forge simulator.
func (e *e2eEnv) forgeRunners() map[string]bool {
	names := map[string]bool{}
	for _, r := range e.sim.Runners() {
		names[r.Name] = true
	}
	return names
}

// queueJobs queues n jobs with labels on the simulator and returns their ids.
func (e *e2eEnv) queueJobs(t *testing.T, n int, duration time.Duration, labels ...string) []int64 {
	t.Helper()
	ids := make([]int64, 0, n)
	for range n {
		id, err := e.sim.QueueJobFor(demoRepo, duration, labels...)
		if err != nil {
			t.Fatalf("queueing a job: %v", err)
		}
		e.queued[id] = time.Now()
		ids = append(ids, id)
	}
	return ids
}

// completedJobs counts the jobs among ids the simulator saw complete successfully.
func (e *e2eEnv) completedJobs(ids []int64) int {
	n := 0
	for _, id := range ids {
		if j, ok := e.sim.Job(id); ok && j.Status == "completed" && j.Conclusion == "success" {
			n++
		}
	}
	return n
}

// expectNoLeaks checks, once the server settled, that garrison, the provider and the
// forge agree there is nothing left and no instance process is alive.
func (e *e2eEnv) expectNoLeaks(t *testing.T) {
	t.Helper()
	eventually(t, "nothing left in garrison, the provider, the forge or the process table", func() (bool, string) {
		l, err := e.countLeaks(t.Context())
		if err != nil {
			return false, err.Error()
		}
		return l == leaks{}, fmt.Sprintf("%+v", l)
	})
}

// eventually polls cond every 200ms until it holds, failing the test after e2eDeadline
// with the last state cond described.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	eventuallyWithin(t, e2eDeadline, what, cond)
}

// eventuallyWithin is eventually with its own deadline.
func eventuallyWithin(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) || t.Context().Err() != nil {
			t.Fatalf("timed out after %s waiting for %s; last state: %s", limit, what, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// describe lists instances as name=state for failure messages.
func describe(insts []apiv1.Instance) string {
	parts := make([]string, 0, len(insts))
	for _, in := range insts {
		parts = append(parts, fmt.Sprintf("%s=%s/g%d", in.Name, runnerState(in), in.Generation))
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, " ") + "]"
}

// idleNames returns the names of the idle runners among insts.
func idleNames(insts []apiv1.Instance) []string {
	var names []string
	for _, in := range insts {
		if runnerState(in) == "idle" {
			names = append(names, in.Name)
		}
	}
	return names
}

// hasMessage reports whether one of the instance's status messages contains s.
func hasMessage(in apiv1.Instance, s string) bool {
	return slices.ContainsFunc(in.StatusMessages, func(m apiv1.StatusMessage) bool { return strings.Contains(m.Message, s) })
}

package testbed_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// e2eDeadline bounds every wait of the end-to-end tests: generous, since they only
// assert what happened, never how fast.
const e2eDeadline = 90 * time.Second

// e2eSlowEnv enables the end-to-end tests that wait out product timers of a minute or
// more (the bootstrap timeout, the create retry backoff).
const e2eSlowEnv = "GARRISON_E2E_SLOW"

// e2eEnv is one end-to-end environment on a bed: the forge simulator, an in-process
// server on a fresh data directory, and the simulation provider booting the stand-in
// runner through the real install script (both played by this test binary). The
// repository is set up with its webhook; the test adds the pools.
type e2eEnv struct {
	*testbed.Bed
	repoID string
}

// skipE2E skips end-to-end tests in -short mode and on hosts that cannot boot the
// simulated instances.
func skipE2E(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end to end: a server, the forge simulator and many processes")
	}
	if err := testbed.CheckHost(); err != nil {
		t.Skip(err)
	}
}

// newE2E assembles an environment whose stand-in runners run each job for jobDuration.
// Cleanup stops everything, kills what is left and logs the server's log on failure.
func newE2E(t *testing.T, jobDuration time.Duration, tweak ...func(*testbed.Options)) *e2eEnv {
	t.Helper()
	skipE2E(t)
	base := t.TempDir()
	o := testbed.Options{JobDuration: jobDuration, BootDelay: 50 * time.Millisecond, BaseDir: base, Tools: helperTools(t)}
	for _, f := range tweak {
		f(&o)
	}
	b, err := testbed.New(o)
	if err != nil {
		t.Fatalf("starting the bed: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log (tail):\n%s", serverLogTail(base))
		}
		if err := b.Close(false); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	if err := b.StartServer(context.Background(), testbed.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	repo, err := b.SetupRepo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return &e2eEnv{Bed: b, repoID: repo.ID}
}

// addPool creates an enabled pool of the simulation provider for the repository with the
// given tags; tweak adjusts the parameters further.
func (e *e2eEnv) addPool(t *testing.T, tags []string, minIdle, maxRunners uint, tweak func(*apiv1.CreatePoolParams)) apiv1.Pool {
	t.Helper()
	p := apiv1.CreatePoolParams{ProviderName: testbed.ProviderName, MaxRunners: maxRunners, MinIdleRunners: minIdle,
		Image: "e2e-v1", Flavor: "small", OSType: "linux", OSArch: "amd64", Tags: tags, Enabled: true}
	if tweak != nil {
		tweak(&p)
	}
	pool, err := e.API.CreatePool(t.Context(), apiclient.Repositories, e.repoID, p)
	if err != nil {
		t.Fatalf("creating a pool: %v", err)
	}
	e.PoolIDs = append(e.PoolIDs, pool.ID)
	return pool
}

// poolInstances lists the pool's instances through the REST API.
func (e *e2eEnv) poolInstances(t *testing.T, poolID string) []apiv1.Instance {
	t.Helper()
	insts, err := e.API.ListPoolInstances(t.Context(), poolID, false)
	if err != nil {
		t.Fatalf("listing the pool's instances: %v", err)
	}
	return insts
}

// providerRecords names the instances the simulation provider holds for this controller.
func (e *e2eEnv) providerRecords(t *testing.T) map[string]bool {
	t.Helper()
	p, err := e.SimProvider()
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
	for _, r := range e.Sim.Runners() {
		names[r.Name] = true
	}
	return names
}

// queueJobs queues n jobs with labels on the simulator and returns their ids.
func (e *e2eEnv) queueJobs(t *testing.T, n int, duration time.Duration, labels ...string) []int64 {
	t.Helper()
	ids := make([]int64, 0, n)
	for range n {
		id, err := e.Sim.QueueJobFor(testbed.Repo, duration, labels...)
		if err != nil {
			t.Fatalf("queueing a job: %v", err)
		}
		e.Queued[id] = time.Now()
		ids = append(ids, id)
	}
	return ids
}

// expectNoLeaks checks, once the server settled, that garrison, the provider and the
// forge agree there is nothing left and no instance process is alive.
func (e *e2eEnv) expectNoLeaks(t *testing.T) {
	t.Helper()
	eventually(t, "nothing left in garrison, the provider, the forge or the process table", func() (bool, string) {
		l, err := e.CountLeaks(t.Context())
		if err != nil {
			return false, err.Error()
		}
		return l == testbed.Leaks{}, fmt.Sprintf("%+v", l)
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
		parts = append(parts, fmt.Sprintf("%s=%s/g%d", in.Name, testbed.RunnerState(in), in.Generation))
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, " ") + "]"
}

// idleNames returns the names of the idle runners among insts.
func idleNames(insts []apiv1.Instance) []string {
	var names []string
	for _, in := range insts {
		if testbed.RunnerState(in) == "idle" {
			names = append(names, in.Name)
		}
	}
	return names
}

// hasMessage reports whether one of the instance's status messages contains s.
func hasMessage(in apiv1.Instance, s string) bool {
	return slices.ContainsFunc(in.StatusMessages, func(m apiv1.StatusMessage) bool { return strings.Contains(m.Message, s) })
}

package scaleset_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	fss "github.com/garrison-ci/garrison/internal/forge/scaleset"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/scaleset/actions"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// simEnv is the listener against the forge simulator's Actions service through the real
// client: a real store, a repository acme/app and a scale set "set" on both sides.
// Runners are played by the test: a stored instance is "booted" (running, idle) and its
// forge runner takes, starts and finishes jobs with the simulator's runner calls; an
// instance marked for deletion is removed as the instance controller would.
type simEnv struct {
	t   *testing.T
	sim *forgesim.Sim
	st  store.Store
	hub *actions.Hub
	e   garrison.Entity
	ss  garrison.ScaleSet
}

func newSimEnv(t *testing.T, ghes bool, maxRunners, minIdle uint) *simEnv {
	t.Helper()
	return newSimEnvWith(t, forgesim.Options{ScaleSets: forgesim.ScaleSetOptions{Hold: 20 * time.Millisecond, Available: ghes}},
		maxRunners, minIdle)
}

// newSimEnvWith is newSimEnv with the simulator's options.
func newSimEnvWith(t *testing.T, opts forgesim.Options, maxRunners, minIdle uint) *simEnv {
	t.Helper()
	ctx := t.Context()
	sim := forgesim.New(opts)
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken("pat-1")
	sim.AddOrg("acme")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer("test passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ep, err := st.CreateEndpoint(ctx, garrison.Endpoint{Name: "sim", Type: garrison.GitHub, BaseURL: url, APIBaseURL: url + "/api/v3/"})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: garrison.GitHub, AuthType: garrison.AuthPAT,
		Endpoint: ep.Name, PAT: "pat-1"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app", CredentialsID: cr.ID})
	if err != nil {
		t.Fatal(err)
	}
	if e, err = st.Entity(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	hub := actions.New(actions.Options{Store: st, Client: fss.Options{ExactAPIBaseURL: true, RetryMax: -1}})
	ss := garrison.ScaleSet{EntityID: e.ID, EntityType: e.Type, Name: "set", ProviderName: "sim", Image: "i", Flavor: "f",
		OSType: "linux", OSArch: "amd64", MaxRunners: maxRunners, MinIdleRunners: minIdle, Enabled: true,
		RunnerGroup: "Default", RunnerPrefix: "ss", State: garrison.ScaleSetCreated}
	if ss.ScaleSetID, err = hub.CreateScaleSet(ctx, e, ss); err != nil {
		t.Fatal(err)
	}
	if ss, err = st.CreateScaleSet(ctx, ss); err != nil {
		t.Fatal(err)
	}
	return &simEnv{t: t, sim: sim, st: st, hub: hub, e: e, ss: ss}
}

func (s *simEnv) controller(owner string) *scaleset.Controller {
	return scaleset.New(scaleset.Options{Store: s.st, Services: s.hub, Owner: owner, ClaimTTL: time.Hour,
		ConflictHold: time.Millisecond})
}

func (s *simEnv) instances() []garrison.Instance {
	s.t.Helper()
	list, err := s.st.ListInstances(s.t.Context(), store.InstanceFilter{ScaleSetID: s.ss.ID})
	if err != nil {
		s.t.Fatal(err)
	}
	return list
}

func (s *simEnv) live() int {
	n := 0
	for _, in := range s.instances() {
		if !in.Status.Deleting() {
			n++
		}
	}
	return n
}

// play does what runners and the instance controller would: boots pending instances,
// removes instances marked for deletion, and lets idle runners take, start and finish
// jobs (a job taken in one round finishes in the next).
func (s *simEnv) play() {
	s.t.Helper()
	ctx := s.t.Context()
	secrets := map[string]string{}
	for _, rn := range s.sim.Runners() {
		secrets[rn.Name] = rn.Secret
	}
	running := map[string]int64{}
	for _, j := range s.sim.Jobs() {
		if j.Status == "in_progress" {
			running[j.RunnerName] = j.ID
		}
	}
	for _, in := range s.instances() {
		switch {
		case in.Status.Deleting():
			if err := s.st.DeleteInstance(ctx, in.Name); err != nil {
				s.t.Fatal(err)
			}
		case in.Status == garrison.InstancePendingCreate:
			s.setStatus(in.Name, garrison.InstanceRunning, garrison.RunnerIdle)
		case running[in.Name] != 0:
			if _, err := s.sim.CompleteJob(running[in.Name], secrets[in.Name], "success"); err != nil {
				s.t.Fatalf("complete job of %s: %v", in.Name, err)
			}
		case in.RunnerStatus == garrison.RunnerIdle && secrets[in.Name] != "":
			j, err := s.sim.Acquire(in.Name, secrets[in.Name])
			if err != nil || j == nil {
				continue // nothing assigned to the scale set yet
			}
			if _, err := s.sim.StartJob(j.ID, secrets[in.Name]); err != nil {
				s.t.Fatalf("start job: %v", err)
			}
		}
	}
}

func (s *simEnv) setStatus(name string, st garrison.InstanceStatus, rs garrison.RunnerStatus) {
	s.t.Helper()
	if _, err := s.st.UpdateInstance(s.t.Context(), name, func(i *garrison.Instance) error {
		i.Status, i.RunnerStatus = st, rs
		return nil
	}); err != nil {
		s.t.Fatal(err)
	}
}

// until steps the controller and plays the runners until done holds, at most rounds
// times; it fails the test otherwise. Step failures are tolerated (an outage, say) and
// returned as a count.
func (s *simEnv) until(c *scaleset.Controller, rounds int, what string, done func() bool) int {
	s.t.Helper()
	failures := 0
	for range rounds {
		if done() {
			return failures
		}
		if _, err := c.Step(s.t.Context(), s.ss.ID); err != nil {
			failures++
		}
		s.play()
	}
	if !done() {
		s.t.Fatalf("not reached after %d rounds: %s (live %d, jobs %s)", rounds, what, s.live(), s.jobSummary())
	}
	return failures
}

func (s *simEnv) queue(n int) {
	s.t.Helper()
	for range n {
		if _, err := s.sim.QueueJob("acme/app", "set"); err != nil {
			s.t.Fatal(err)
		}
	}
}

func (s *simEnv) completed() int {
	n := 0
	for _, j := range s.sim.Jobs() {
		if j.Status == "completed" {
			n++
		}
	}
	return n
}

func (s *simEnv) jobSummary() string {
	var b strings.Builder
	for _, j := range s.sim.Jobs() {
		b.WriteString(j.Status + " ")
	}
	return b.String()
}

// TestSimBurstAssigned (github.com flow): a burst of 8 jobs is served by at most 3
// runners, each runner leaves after its job, and the scale set drains to its minimum.
func TestSimBurstAssigned(t *testing.T) { simBurst(t, false) }

// TestSimBurstAcquire is the same on GHES: jobs come as JobAvailable and are acquired.
func TestSimBurstAcquire(t *testing.T) { simBurst(t, true) }

func simBurst(t *testing.T, ghes bool) {
	s := newSimEnv(t, ghes, 3, 0)
	c := s.controller("replica-a")
	s.until(c, 5, "session open", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-a" })
	s.queue(8)
	peak := 0
	s.until(c, 400, "all jobs served", func() bool {
		peak = max(peak, s.live())
		return s.completed() == 8
	})
	if peak > 3 {
		t.Fatalf("peak of %d runners, max is 3", peak)
	}
	if peak < 3 {
		t.Fatalf("peak of %d runners for 8 jobs, want the max 3", peak)
	}
	s.until(c, 50, "drained to zero", func() bool { return s.live() == 0 && len(s.sim.Runners()) == 0 })
	if got := s.sim.ScaleSets()[0].MaxCapacity; got != 3 {
		t.Errorf("X-ScaleSetMaxCapacity %d, want 3", got)
	}
}

// TestSimScaleToZeroAndBack: with no demand nothing runs; new jobs bring runners back.
func TestSimScaleToZeroAndBack(t *testing.T) {
	s := newSimEnv(t, false, 4, 0)
	c := s.controller("replica-a")
	s.queue(2)
	s.until(c, 200, "first jobs served", func() bool { return s.completed() == 2 })
	s.until(c, 50, "zero", func() bool { return s.live() == 0 })
	s.queue(3)
	s.until(c, 200, "back up and served", func() bool { return s.completed() == 5 })
}

// TestSimSessionTakeover: a replica dies holding the session; another takes the claim
// over once it lapses, closes the dead one's session on the service and carries on.
func TestSimSessionTakeover(t *testing.T) {
	s := newSimEnv(t, false, 2, 0)
	a := s.controller("replica-a")
	s.until(a, 5, "a's session", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-a" })
	// replica-a dies: its claim's last renewal lapses; its session stays open on the service.
	if _, _, err := s.st.ClaimScaleSetSession(t.Context(), s.ss.ID, "replica-a", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	b := s.controller("replica-b")
	s.until(b, 5, "b's session", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-b" })
	s.queue(2)
	s.until(b, 200, "jobs served by b", func() bool { return s.completed() == 2 })
}

// TestSimForeignSessionConflict: a session the store knows nothing of (another manager)
// is waited out, not fought over; once it is gone the listener opens its own.
func TestSimForeignSessionConflict(t *testing.T) {
	s := newSimEnv(t, false, 2, 0)
	foreign, err := s.sim.OpenForeignSession(int64(s.ss.ScaleSetID), "someone-else")
	if err != nil {
		t.Fatal(err)
	}
	c := s.controller("replica-a")
	res, err := c.Step(t.Context(), s.ss.ID)
	if err != nil || !res.Hold {
		t.Fatalf("conflict step: %+v %v, want a hold", res, err)
	}
	if got := s.sim.ScaleSets()[0].SessionID; got != foreign {
		t.Fatalf("the foreign session was replaced: %s", got)
	}
	// The other manager went away: its session idles out on the service.
	s.sim.SetScaleSetOptions(forgesim.ScaleSetOptions{Hold: 20 * time.Millisecond, SessionIdle: 10 * time.Millisecond})
	time.Sleep(30 * time.Millisecond)
	s.until(c, 5, "own session", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-a" })
}

// TestSimTokenExpiryRecovered: expired queue tokens are refreshed and work goes on.
func TestSimTokenExpiryRecovered(t *testing.T) {
	s := newSimEnv(t, false, 2, 0)
	c := s.controller("replica-a")
	s.until(c, 5, "session", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-a" })
	s.sim.ExpireQueueTokens(int64(s.ss.ScaleSetID))
	s.sim.ExpireAdminTokens()
	s.queue(2)
	if failures := s.until(c, 200, "jobs served after expiry", func() bool { return s.completed() == 2 }); failures != 0 {
		t.Fatalf("%d failed steps: expiry should be recovered in place", failures)
	}
}

// TestSimOutageThenRecovery: during an outage of the message stream jobs pile up; after
// it they are served and no runner is left behind.
func TestSimOutageThenRecovery(t *testing.T) {
	s := newSimEnv(t, false, 3, 0)
	c := s.controller("replica-a")
	s.until(c, 5, "session", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-a" })
	s.sim.SetScaleSetOutage(true)
	s.queue(4)
	for range 5 {
		_, _ = c.Step(t.Context(), s.ss.ID)
		s.play()
	}
	if s.live() != 0 {
		t.Fatalf("%d runners made during the outage from no message", s.live())
	}
	s.sim.FailScaleSetCalls(3, 503) // the service comes back flaky
	s.sim.SetScaleSetOutage(false)
	s.until(c, 300, "served after the outage", func() bool { return s.completed() == 4 })
	s.until(c, 50, "nothing stranded", func() bool { return s.live() == 0 && len(s.sim.Runners()) == 0 })
}

package scaleset_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// env is a real SQLite store with a repository and an enabled scale set known to the
// fake service as scale set 42.
type env struct {
	t   *testing.T
	st  store.Store
	svc *fakeService
	ss  garrison.ScaleSet
}

func newEnv(t *testing.T, maxRunners, minIdle uint) *env {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer("test passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	creds, err := st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "github.com", PAT: "x"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "o", Name: "r", CredentialsID: creds.ID})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := st.CreateScaleSet(ctx, garrison.ScaleSet{EntityID: e.ID, Name: "set", ScaleSetID: 42,
		ProviderName: "sim", Image: "i", Flavor: "f", OSType: "linux", OSArch: "amd64", MaxRunners: maxRunners,
		MinIdleRunners: minIdle, Enabled: true, RunnerGroup: "Default", RunnerPrefix: "ss",
		State: garrison.ScaleSetCreated})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, st: st, svc: newFakeService(), ss: ss}
}

func (e *env) controller(owner string, edit ...func(*scaleset.Options)) *scaleset.Controller {
	o := scaleset.Options{Store: e.st, Services: e.svc, Owner: owner, ClaimTTL: time.Hour}
	for _, fn := range edit {
		fn(&o)
	}
	return scaleset.New(o)
}

func (e *env) step(c *scaleset.Controller) workqueue.Result {
	e.t.Helper()
	res, err := c.Step(e.t.Context(), e.ss.ID)
	if err != nil {
		e.t.Fatalf("step: %v", err)
	}
	return res
}

func (e *env) instances() []garrison.Instance {
	e.t.Helper()
	list, err := e.st.ListInstances(e.t.Context(), store.InstanceFilter{ScaleSetID: e.ss.ID})
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}

// live counts the instances not on their way out.
func (e *env) live() int {
	n := 0
	for _, in := range e.instances() {
		if !in.Status.Deleting() {
			n++
		}
	}
	return n
}

func (e *env) scaleSet() garrison.ScaleSet {
	e.t.Helper()
	ss, err := e.st.ScaleSet(e.t.Context(), e.ss.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return ss
}

// boot marks every pending instance running with the given runner status, as the
// instance controller and the runner's callbacks would.
func (e *env) boot(status garrison.RunnerStatus) {
	e.t.Helper()
	for _, in := range e.instances() {
		if in.Status != garrison.InstancePendingCreate {
			continue
		}
		_, err := e.st.UpdateInstance(e.t.Context(), in.Name, func(i *garrison.Instance) error {
			i.Status, i.RunnerStatus = garrison.InstanceRunning, status
			return nil
		})
		if err != nil {
			e.t.Fatal(err)
		}
	}
}

func TestBurstServedUpToMaxAndDrained(t *testing.T) {
	e := newEnv(t, 5, 1)
	c := e.controller("replica-a")
	e.step(c) // session opened; seeded with 0 assigned jobs: min idle only
	if n := e.live(); n != 1 {
		t.Fatalf("%d runners at rest, want min idle 1", n)
	}
	e.svc.push(1, 12) // a burst: 12 jobs assigned, max 5
	e.step(c)
	if n := e.live(); n != 5 {
		t.Fatalf("%d runners in the burst, want max 5", n)
	}
	if got := e.scaleSet(); got.DesiredRunnerCount != 12 || got.LastMessageID != 1 {
		t.Fatalf("stored desired %d, last message %d", got.DesiredRunnerCount, got.LastMessageID)
	}
	for _, listed := range e.instances() {
		in, err := e.st.Instance(t.Context(), listed.Name) // lists do not carry JIT configs
		if err != nil {
			t.Fatal(err)
		}
		if in.AgentID == 0 || in.JITConfig[".runner"] == "" || in.Status != garrison.InstancePendingCreate ||
			in.RunnerStatus != garrison.RunnerPending || in.ScaleSetID != e.ss.ID || in.RunnerGroup != "Default" {
			t.Fatalf("new runner %+v", in)
		}
	}
	// All five take a job; the jobs finish one by one and the queue drains.
	e.boot(garrison.RunnerIdle)
	var started []scaleset.JobMessage
	for _, in := range e.instances() {
		started = append(started, scaleset.JobMessage{Type: scaleset.JobStarted, JobID: in.Name + "-job", RunnerName: in.Name})
	}
	e.svc.push(2, 12, started...)
	e.step(c)
	for _, in := range e.instances() {
		if in.RunnerStatus != garrison.RunnerActive {
			t.Fatalf("runner %s after JobStarted: %s", in.Name, in.RunnerStatus)
		}
	}
	first := e.instances()[0]
	e.svc.push(3, 11, scaleset.JobMessage{Type: scaleset.JobCompleted, RunnerName: first.Name, Result: "succeeded"})
	e.step(c)
	got, err := e.st.Instance(t.Context(), first.Name)
	if err != nil || got.Status != garrison.InstancePendingDelete || got.RunnerStatus != garrison.RunnerTerminated {
		t.Fatalf("runner after its job: %+v %v", got, err)
	}
	if n := e.live(); n != 5 {
		t.Fatalf("%d runners with 11 jobs left, want a replacement up to 5", n)
	}
	// Everything done: back to min idle. Until their jobs complete, busy runners stay.
	e.boot(garrison.RunnerIdle)
	e.svc.push(4, 0)
	e.step(c)
	if n := e.live(); n != 4 {
		t.Fatalf("%d runners with 4 still busy, want those 4", n)
	}
	var done []scaleset.JobMessage
	for _, in := range e.instances() {
		if in.RunnerStatus == garrison.RunnerActive {
			done = append(done, scaleset.JobMessage{Type: scaleset.JobCompleted, RunnerName: in.Name, Result: "succeeded"})
		}
	}
	e.svc.push(5, 0, done...)
	e.step(c)
	if n := e.live(); n != 1 {
		t.Fatalf("%d runners after the drain, want 1", n)
	}
}

func TestBusyRunnersNeverScaledDown(t *testing.T) {
	e := newEnv(t, 4, 0)
	c := e.controller("replica-a")
	e.svc.push(1, 4)
	e.step(c)
	e.boot(garrison.RunnerIdle)
	insts := e.instances()
	// Two take jobs; one of them is reported busy by the service only (a JobStarted not
	// seen yet): the service refuses its removal.
	e.svc.push(2, 4, scaleset.JobMessage{Type: scaleset.JobStarted, RunnerName: insts[0].Name})
	e.step(c)
	e.svc.do(func(f *fakeService) { f.busy[insts[1].AgentID] = true })
	e.svc.push(3, 0) // scale to zero
	e.step(c)
	var kept []string
	for _, in := range e.instances() {
		if !in.Status.Deleting() {
			kept = append(kept, in.Name)
		}
	}
	slices.Sort(kept)
	want := []string{insts[0].Name, insts[1].Name}
	slices.Sort(want)
	if !slices.Equal(kept, want) {
		t.Fatalf("kept %v, want the busy ones %v", kept, want)
	}
	// Scale to zero and back.
	e.svc.do(func(f *fakeService) { f.busy[insts[1].AgentID] = false })
	e.svc.push(4, 0, scaleset.JobMessage{Type: scaleset.JobCompleted, RunnerName: insts[0].Name})
	e.step(c)
	if n := e.live(); n != 0 {
		t.Fatalf("%d runners at zero demand", n)
	}
	e.svc.push(5, 3)
	e.step(c)
	if n := e.live(); n != 3 {
		t.Fatalf("%d runners back up, want 3", n)
	}
}

func TestRestartNeitherLosesNorReplays(t *testing.T) {
	e := newEnv(t, 10, 0)
	a := e.controller("replica-a")
	e.svc.push(1, 2)
	e.step(a)
	if n := e.live(); n != 2 {
		t.Fatalf("%d runners", n)
	}
	// The message was stored but its ack got lost (a crash right after storing it).
	e.svc.do(func(f *fakeService) { delete(f.acked, 1) })
	// replica-a dies: its last renewal lapses without another.
	if _, _, err := e.st.ClaimScaleSetSession(t.Context(), e.ss.ID, "replica-a", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	b := e.controller("replica-b")
	e.step(b) // takes over, closes a's forge session, gets message 1 again: acks, no replay
	if n := e.live(); n != 2 {
		t.Fatalf("%d runners after the restart, want still 2", n)
	}
	e.svc.do(func(f *fakeService) {
		if !slices.Contains(f.deleted, "session-1") {
			t.Errorf("the dead holder's session was not closed: deleted %v", f.deleted)
		}
		if !f.acked[1] {
			t.Error("the redelivered message was not acked")
		}
		if last := f.polls[len(f.polls)-1]; last != 1 {
			t.Errorf("the new holder polled after %d, want 1", last)
		}
	})
	e.svc.push(2, 5)
	e.step(b)
	if n := e.live(); n != 5 {
		t.Fatalf("%d runners after the next message, want 5", n)
	}
}

func TestOneSessionAcrossReplicas(t *testing.T) {
	e := newEnv(t, 3, 0)
	a, b := e.controller("replica-a"), e.controller("replica-b")
	e.step(a)
	res := e.step(b)
	if res.RequeueAfter < 30*time.Minute { // ClaimTTL/2 of an hour
		t.Fatalf("the second replica should wait for the claim, got %+v", res)
	}
	e.svc.do(func(f *fakeService) {
		if f.nextSession != 1 {
			t.Errorf("%d sessions opened, want 1", f.nextSession)
		}
	})
	if got := e.scaleSet().Session; got.Owner != "replica-a" || got.SessionID != "session-1" {
		t.Fatalf("claim %+v", got)
	}
}

func TestSessionConflictIsHeld(t *testing.T) {
	e := newEnv(t, 3, 0)
	e.svc.do(func(f *fakeService) { f.sessions[42] = "someone-else" }) // not recorded in the store
	c := e.controller("replica-a", func(o *scaleset.Options) { o.ConflictHold = 45 * time.Second })
	res := e.step(c)
	if !res.Hold || res.RequeueAfter != 45*time.Second {
		t.Fatalf("conflict result %+v, want a 45s hold", res)
	}
	e.svc.do(func(f *fakeService) { delete(f.sessions, 42) }) // the other session expired
	e.step(c)
	if got := e.scaleSet().Session; got.SessionID == "" {
		t.Fatal("no session after the conflict cleared")
	}
}

func TestTokenExpiryRecovered(t *testing.T) {
	e := newEnv(t, 3, 0)
	c := e.controller("replica-a")
	e.step(c)
	e.svc.do(func(f *fakeService) { f.expireNext = 1 })
	e.svc.push(1, 2)
	e.step(c) // GetMessage: 401, refresh, retry
	if n := e.live(); n != 2 {
		t.Fatalf("%d runners after a refreshed token", n)
	}
	// A token that cannot be renewed drops the session; the next step opens a new one.
	e.svc.do(func(f *fakeService) { f.expireNext, f.refreshFail = 1, true })
	if _, err := c.Step(t.Context(), e.ss.ID); err == nil {
		t.Fatal("an unrenewable token did not fail the step")
	}
	e.svc.do(func(f *fakeService) { f.refreshFail = false })
	e.svc.push(2, 3)
	e.step(c)
	if n := e.live(); n != 3 {
		t.Fatalf("%d runners after a new session", n)
	}
	e.svc.do(func(f *fakeService) {
		if f.nextSession != 2 {
			t.Errorf("%d sessions opened, want 2", f.nextSession)
		}
	})
}

func TestAcquireFlow(t *testing.T) {
	e := newEnv(t, 3, 0)
	c := e.controller("replica-a")
	e.step(c)
	e.svc.do(func(f *fakeService) { f.acquireFail = garrison.Errorf(garrison.EUnavailable, "503") })
	e.svc.push(1, 2, scaleset.JobMessage{Type: scaleset.JobAvailable, RunnerRequestID: 7},
		scaleset.JobMessage{Type: scaleset.JobAvailable, RunnerRequestID: 8})
	if _, err := c.Step(t.Context(), e.ss.ID); err == nil {
		t.Fatal("a failed acquire did not fail the step")
	}
	if got := e.scaleSet(); got.LastMessageID != 0 {
		t.Fatalf("a message whose jobs were not acquired was recorded: %d", got.LastMessageID)
	}
	e.svc.do(func(f *fakeService) { f.acquireFail = nil })
	e.step(c) // redelivered, acquired now
	e.svc.do(func(f *fakeService) {
		if !slices.Equal(f.acquired, []int64{7, 8}) || !f.acked[1] {
			t.Errorf("acquired %v, acked %v", f.acquired, f.acked)
		}
	})
	if n := e.live(); n != 2 {
		t.Fatalf("%d runners", n)
	}
}

func TestDisableClosesSession(t *testing.T) {
	e := newEnv(t, 3, 1)
	c := e.controller("replica-a")
	e.step(c)
	e.boot(garrison.RunnerIdle)
	if _, err := e.st.UpdateScaleSet(t.Context(), e.ss.ID, func(s *garrison.ScaleSet) error {
		s.Enabled, s.MinIdleRunners = false, 0
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.step(c)
	got := e.scaleSet()
	if got.Session.Owner != "" || got.Session.SessionID != "" {
		t.Fatalf("claim after disable: %+v", got.Session)
	}
	e.svc.do(func(f *fakeService) {
		if len(f.sessions) != 0 {
			t.Errorf("sessions still open: %v", f.sessions)
		}
	})
	if n := e.live(); n != 0 {
		t.Fatalf("%d runners kept after disable with min idle 0", n)
	}
}

// TestUnfinishedRunnersHandedOutOnce: runners an earlier process left with a provider
// step to take go to the instance controller on the first step, new ones when made,
// and the same ones are not handed out again on every step.
func TestUnfinishedRunnersHandedOutOnce(t *testing.T) {
	e := newEnv(t, 3, 1)
	if _, err := e.st.CreateInstance(t.Context(), garrison.Instance{Name: "ss-left", ScaleSetID: e.ss.ID, ProviderName: "sim",
		Status: garrison.InstanceCreating, RunnerStatus: garrison.RunnerPending}); err != nil {
		t.Fatal(err)
	}
	var handed []string
	c := e.controller("replica-a", func(o *scaleset.Options) {
		o.OnInstances = func(names ...string) { handed = append(handed, names...) }
	})
	e.step(c)
	e.step(c)
	e.svc.push(1, 1)
	e.step(c)
	count := map[string]int{}
	for _, n := range handed {
		count[n]++
	}
	if count["ss-left"] != 1 {
		t.Fatalf("the left-over runner was handed out %d times, want once (%v)", count["ss-left"], handed)
	}
	if len(count) != 2 {
		t.Fatalf("handed out %v, want the left-over runner and the one new runner", handed)
	}
}

package scaleset_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/store"
)

// TestRestartTakesOwnClaimBack: a server killed while it held a scale set's session claim
// restarts under the same owner (internal/server's sessionOwner); the new process takes
// the live claim back at once, closes the session its predecessor left open and opens
// its own, instead of waiting for the claim to lapse.
func TestRestartTakesOwnClaimBack(t *testing.T) {
	e := newEnv(t, 10, 0)
	e.svc.push(1, 2)
	e.step(e.controller("replica-a")) // killed after this step: the claim lasts an hour
	again := e.controller("replica-a")
	e.step(again)
	e.svc.do(func(f *fakeService) {
		if !slices.Contains(f.deleted, "session-1") || f.sessions[42] != "session-2" {
			t.Errorf("sessions deleted %v, open %v: want session-1 closed and session-2 open", f.deleted, f.sessions)
		}
	})
	if got := e.scaleSet().Session; got.Owner != "replica-a" || got.SessionID != "session-2" {
		t.Fatalf("claim %+v, want replica-a with session-2", got)
	}
	e.svc.push(2, 3)
	e.step(again)
	if n := e.live(); n != 3 {
		t.Fatalf("%d runners after the next message, want 3", n)
	}
}

// jitCheck is the fake service noting, at each registration, whether the runner's
// instance was stored already; fail makes registrations fail.
type jitCheck struct {
	*fakeService
	st store.Store

	mu     sync.Mutex // guards the fields below
	stored map[string]bool
	fail   error
}

func (j *jitCheck) Service(context.Context, garrison.Entity) (scaleset.Service, error) { return j, nil }

func (j *jitCheck) GenerateJITConfig(ctx context.Context, id int, name string) (scaleset.JITConfig, error) {
	_, err := j.st.Instance(ctx, name)
	j.mu.Lock()
	j.stored[name] = err == nil
	fail := j.fail
	j.mu.Unlock()
	if fail != nil {
		return scaleset.JITConfig{}, fail
	}
	return j.fakeService.GenerateJITConfig(ctx, id, name)
}

// TestRunnerStoredBeforeRegistration: a runner's instance is stored before its JIT runner
// is registered, so that a crash in between leaves a record (which the instances
// controller drops, removing the runner of its name) rather than a runner nothing knows
// of. A registration that fails leaves the request without a JIT configuration, handed
// to the instances controller to drop.
func TestRunnerStoredBeforeRegistration(t *testing.T) {
	for _, tt := range []struct {
		name string
		fail error
	}{{"registered", nil}, {"refused", errors.New("503 from the service")}} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, 5, 2)
			svc := &jitCheck{fakeService: e.svc, st: e.st, stored: map[string]bool{}, fail: tt.fail}
			var (
				mu     sync.Mutex
				handed []string
			)
			c := e.controller("replica-a", func(o *scaleset.Options) {
				o.Services = svc
				o.OnInstances = func(names ...string) {
					mu.Lock()
					defer mu.Unlock()
					handed = append(handed, names...)
				}
			})
			_, err := c.Step(t.Context(), e.ss.ID)
			if (err != nil) != (tt.fail != nil) {
				t.Fatalf("step: %v", err)
			}
			insts := e.instances()
			if len(insts) != 2 {
				t.Fatalf("%d instances, want 2", len(insts))
			}
			for _, in := range insts {
				in, err := e.st.Instance(t.Context(), in.Name) // with its JIT configuration
				if err != nil {
					t.Fatal(err)
				}
				if !svc.stored[in.Name] {
					t.Errorf("%s was registered before it was stored", in.Name)
				}
				if registered := in.AgentID != 0 && len(in.JITConfig) > 0; registered != (tt.fail == nil) {
					t.Errorf("%s: agent %d, %d JIT files", in.Name, in.AgentID, len(in.JITConfig))
				}
				if !slices.Contains(handed, in.Name) {
					t.Errorf("%s not handed to the instances controller (%v)", in.Name, handed)
				}
			}
		})
	}
}

// TestDeadRunnersRetired: a runner that failed to install is marked for deletion and
// replaced at once; one still booting is kept until the bootstrap timeout has passed,
// then replaced too; an idle one is kept.
func TestDeadRunnersRetired(t *testing.T) {
	e := newEnv(t, 5, 3)
	for name, rs := range map[string]garrison.RunnerStatus{"ss-failed": garrison.RunnerFailed,
		"ss-installing": garrison.RunnerInstalling, "ss-idle": garrison.RunnerIdle} {
		if _, err := e.st.CreateInstance(t.Context(), garrison.Instance{Name: name, ScaleSetID: e.ss.ID, ProviderName: "sim",
			Status: garrison.InstanceRunning, RunnerStatus: rs, AgentID: 7}); err != nil {
			t.Fatal(err)
		}
	}
	var handed []string
	now := time.Now()
	c := e.controller("replica-a", func(o *scaleset.Options) {
		o.OnInstances = func(names ...string) { handed = append(handed, names...) }
		o.Now = func() time.Time { return now }
	})
	for _, tt := range []struct {
		after   time.Duration
		retired []string
	}{
		{0, []string{"ss-failed"}},
		{time.Duration(garrison.DefaultRunnerBootstrapTimeout+1) * time.Minute, []string{"ss-failed", "ss-installing"}},
	} {
		now = time.Now().Add(tt.after)
		e.step(c)
		for _, in := range e.instances() {
			retired := in.Status == garrison.InstancePendingDelete && in.RunnerStatus == garrison.RunnerFailed
			if want := slices.Contains(tt.retired, in.Name); retired != want {
				t.Errorf("after %s: %s is %s/%s, retired = %v, want %v", tt.after, in.Name, in.Status, in.RunnerStatus, retired, want)
			}
			if retired && !slices.Contains(handed, in.Name) {
				t.Errorf("%s retired but not handed to the instances controller", in.Name)
			}
		}
		if n := e.live(); n != 3 {
			t.Errorf("after %s: %d live runners, want min idle 3 (the retired ones replaced)", tt.after, n)
		}
	}
}

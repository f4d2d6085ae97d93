package reconcile

import (
	"maps"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// scaleSet creates an enabled scale set of the harness entity on the sim provider.
func (h *harness) scaleSet() garrison.ScaleSet {
	return must(h.store.CreateScaleSet(h.t.Context(), garrison.ScaleSet{EntityID: h.entity.ID, Name: "set", ScaleSetID: 5,
		ProviderName: "sim", Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux,
		OSArch: garrison.ArchAMD64, MaxRunners: 3, Enabled: true, RunnerGroup: "Default", RunnerPrefix: "ss"}))(h.t)
}

// TestScaleSetRunnerLifecycle: the instances controller creates a scale set's runner with
// the provider under the scale set's pool id, keeps the JIT configuration the listener
// got, deletes it with backoff when the provider fails, and force-deletes it whatever
// the provider says.
func TestScaleSetRunnerLifecycle(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	ss := h.scaleSet()
	jit := map[string]string{".runner": "e30="}
	for _, name := range []string{"ss-one", "ss-two"} {
		must(h.store.CreateInstance(ctx, garrison.Instance{Name: name, ScaleSetID: ss.ID, ProviderName: "sim",
			OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstancePendingCreate,
			RunnerStatus: garrison.RunnerPending, JITConfig: jit, AgentID: 0,
			MetadataURL: h.ctrl.MetadataURL, CallbackURL: h.ctrl.CallbackURL}))(t)
	}
	r := h.reconciler(h.prov)
	r.NotifyInstances("ss-one", "ss-two")
	h.drain(r)
	names := h.providerNames(ss.PoolID())
	for _, name := range []string{"ss-one", "ss-two"} {
		in := must(h.store.Instance(ctx, name))(t)
		if in.Status != garrison.InstanceRunning || in.ProviderID == "" || in.JITConfig[".runner"] != "e30=" {
			t.Fatalf("%s after its create step: %+v", name, in)
		}
		if !names[name] {
			t.Fatalf("%s not in the provider under pool %s: %v", name, ss.PoolID(), names)
		}
	}
	if len(h.forgeNames()) != 0 {
		t.Fatalf("a scale-set runner was registered through the REST API: %v", h.forgeNames())
	}

	// The provider refuses deletes: a normal delete waits and retries, a forced one
	// goes through.
	rf := h.reconciler(failingDeletes{h.prov})
	for name, st := range map[string]garrison.InstanceStatus{"ss-one": garrison.InstancePendingDelete, "ss-two": garrison.InstancePendingForceDelete} {
		must(h.store.UpdateInstance(ctx, name, func(i *garrison.Instance) error { i.Status = st; return nil }))(t)
	}
	rf.NotifyInstances("ss-one", "ss-two")
	h.drain(rf)
	if in, err := h.store.Instance(ctx, "ss-one"); err != nil || in.Status.Deleting() == false {
		t.Fatalf("ss-one after a refused delete: %+v %v", in, err)
	}
	if _, err := h.store.Instance(ctx, "ss-two"); err == nil {
		t.Fatal("ss-two survived a forced delete")
	}
	// The provider works again: the waiting delete completes once its backoff is over.
	h.advance(time.Minute)
	r.NotifyInstances("ss-one")
	h.drain(r)
	if _, err := h.store.Instance(ctx, "ss-one"); err == nil {
		t.Fatal("ss-one survived its retried delete")
	}
	if n := len(h.providerNames(ss.PoolID())); n != 1 {
		t.Fatalf("%d instances left in the provider, want the force-deleted one only", n)
	}
}

// TestScaleSetJobReasons: a queued job that targets a scale set of its entity says so in
// the ledger instead of "no pool has all of the labels".
func TestScaleSetJobReasons(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	p := h.pool(0, 1, "")
	must(h.store.CreateScaleSet(ctx, garrison.ScaleSet{EntityID: h.entity.ID, Name: "big-set", ScaleSetID: 5,
		ProviderName: "sim", Image: "i", Flavor: "f", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		MaxRunners: 3, Tags: garrison.TagsFromNames([]string{"gpu"})}))(t)
	for id, labels := range map[int64][]string{1: {"big-set"}, 2: {"BIG-SET", "gpu"}, 3: {"nothing-has-this"}} {
		must(h.store.UpsertJob(ctx, id, func(j *garrison.Job, _ bool) error {
			j.Action, j.Labels, j.EntityID, j.EntityType = garrison.JobQueued, labels, h.entity.ID, h.entity.Type
			return nil
		}))(t)
	}
	h.settle(h.reconciler(h.prov), p.ID)
	for id, want := range map[int64]string{
		1: garrison.ReasonScaleSet("big-set"),
		2: garrison.ReasonScaleSet("big-set"),
		3: garrison.ReasonNoPool([]string{"nothing-has-this"}),
	} {
		if got := must(h.store.Job(ctx, id))(t).Reason; got != want {
			t.Errorf("job %d: reason %q, want %q", id, got, want)
		}
	}
}

// TestPoolsLeaveScaleSetJobs: a job aimed at a scale set gets no pool runner even when a
// pool's labels match it.
func TestPoolsLeaveScaleSetJobs(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	p := h.pool(0, 3, "") // tags self-hosted, linux, x64
	must(h.store.CreateScaleSet(ctx, garrison.ScaleSet{EntityID: h.entity.ID, Name: "linux", ScaleSetID: 5,
		ProviderName: "sim", Image: "i", Flavor: "f", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		MaxRunners: 3, Tags: garrison.TagsFromNames([]string{"self-hosted"})}))(t)
	must(h.store.UpsertJob(ctx, 1, func(j *garrison.Job, _ bool) error {
		j.Action, j.Labels, j.EntityID, j.EntityType = garrison.JobQueued, []string{"self-hosted", "linux"}, h.entity.ID, h.entity.Type
		return nil
	}))(t)
	h.settle(h.reconciler(h.prov), p.ID)
	if n := len(h.instances(p.ID)); n != 0 {
		t.Fatalf("the pool made %d runners for a scale set's job", n)
	}
	if got := must(h.store.Job(ctx, 1))(t).Reason; got != garrison.ReasonScaleSet("linux") {
		t.Fatalf("reason %q", got)
	}
}

// TestScaleSetRunnersResumedByResync: a scale set's runner whose change nobody handed to
// the instances controller (a webhook marked it for deletion before its scale set's
// JobCompleted message, which then had nothing to change) is taken up by the next resync,
// as a pool's would be by its triage: a pending_create one is created, one marked for
// deletion deleted. A running one is left alone.
func TestScaleSetRunnersResumedByResync(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	ss := must(h.store.CreateScaleSet(ctx, garrison.ScaleSet{EntityID: h.entity.ID, Name: "set", ScaleSetID: 5,
		ProviderName: "sim", Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux,
		OSArch: garrison.ArchAMD64, MaxRunners: 3, Enabled: true, RunnerGroup: "Default", RunnerPrefix: "ss"}))(t)
	add := func(name string) {
		must(h.store.CreateInstance(ctx, garrison.Instance{Name: name, ScaleSetID: ss.ID, ProviderName: "sim",
			OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstancePendingCreate,
			RunnerStatus: garrison.RunnerPending, JITConfig: map[string]string{".runner": "e30="},
			MetadataURL: h.ctrl.MetadataURL, CallbackURL: h.ctrl.CallbackURL}))(t)
	}
	r := h.reconciler(h.prov)
	for _, name := range []string{"ss-done", "ss-idle"} {
		add(name)
	}
	r.NotifyInstances("ss-done", "ss-idle")
	h.drain(r)
	// What the webhook intake does to a runner whose job completed, without a word to the
	// instances controller; and a runner stored but never handed over.
	must(h.store.UpdateInstance(ctx, "ss-done", func(i *garrison.Instance) error {
		i.Status, i.RunnerStatus, i.JobID = garrison.InstancePendingDelete, garrison.RunnerTerminated, 7
		return nil
	}))(t)
	add("ss-new")
	if n := h.drain(r); n != 0 {
		t.Fatalf("%d steps before the resync: nothing was handed over", n)
	}
	if _, err := r.resyncAll(ctx, resyncKey); err != nil {
		t.Fatal(err)
	}
	h.drain(r)
	if _, err := h.store.Instance(ctx, "ss-done"); err == nil {
		t.Error("ss-done is still there after the resync")
	}
	for _, name := range []string{"ss-idle", "ss-new"} {
		if in := must(h.store.Instance(ctx, name))(t); in.Status != garrison.InstanceRunning {
			t.Errorf("%s after the resync: %s, want running", name, in.Status)
		}
	}
	if names := h.providerNames(ss.PoolID()); names["ss-done"] || !names["ss-idle"] || !names["ss-new"] {
		t.Errorf("provider instances %v, want ss-idle and ss-new", names)
	}
}

// TestScaleSetUnregisteredRequestDropped: a scale set's runner request whose JIT
// registration never completed (the listener died between storing the instance and
// recording its runner) is dropped: the forge runner of its name, when the registration
// went through, is deregistered, the record removed, and nothing is created.
func TestScaleSetUnregisteredRequestDropped(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	ss := h.scaleSet()
	for _, tt := range []struct {
		name       string
		registered bool // the registration reached the forge before the crash
	}{{"ss-registered", true}, {"ss-never", false}} {
		must(h.store.CreateInstance(ctx, garrison.Instance{Name: tt.name, ScaleSetID: ss.ID, ProviderName: "sim",
			OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstancePendingCreate,
			RunnerStatus: garrison.RunnerPending, MetadataURL: h.ctrl.MetadataURL, CallbackURL: h.ctrl.CallbackURL}))(t)
		if tt.registered {
			must(h.forge.CreateJITConfig(ctx, h.entity, garrison.JITRequest{Name: tt.name, Labels: []string{"set"}}))(t)
		}
	}
	if !h.forgeNames()["ss-registered"] {
		t.Fatal("the registration did not reach the forge; the test would prove nothing")
	}
	r := h.reconciler(h.prov)
	r.NotifyInstances("ss-registered", "ss-never")
	h.drain(r)
	for _, name := range []string{"ss-registered", "ss-never"} {
		if in, err := h.store.Instance(ctx, name); err == nil {
			t.Errorf("%s kept: %+v", name, in)
		}
	}
	if names := h.forgeNames(); len(names) != 0 {
		t.Errorf("forge runners left: %v", names)
	}
	if names := h.providerNames(ss.PoolID()); len(names) != 0 {
		t.Errorf("instances created: %v", names)
	}
}

// TestScaleSetRunnerInErrorFollowedUp: a scale set has no pool plan to take its runners'
// next steps, so the instances controller follows a runner up by itself: a create
// interrupted by a restart is resolved as failed and retried once its backoff passed,
// with no one notifying it again; a runner past its create attempts is retired (kept as
// history) instead of holding its scale set's slot forever (found by
// TestCrashRestartScaleSet: four runners stuck in error held the slots of three jobs).
func TestScaleSetRunnerInErrorFollowedUp(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	ss := h.scaleSet()
	for name, tt := range map[string]struct {
		status   garrison.InstanceStatus
		attempts int
	}{"ss-interrupted": {garrison.InstanceCreating, 0}, "ss-exhausted": {garrison.InstanceError, 5}} {
		must(h.store.CreateInstance(ctx, garrison.Instance{Name: name, ScaleSetID: ss.ID, ProviderName: "sim",
			OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: tt.status, CreateAttempt: tt.attempts,
			RunnerStatus: garrison.RunnerPending, JITConfig: map[string]string{".runner": "e30="}, AgentID: 9,
			MetadataURL: h.ctrl.MetadataURL, CallbackURL: h.ctrl.CallbackURL}))(t)
	}
	r := h.reconciler(h.prov)
	r.NotifyInstances("ss-interrupted", "ss-exhausted")
	want := map[string]garrison.InstanceStatus{"ss-interrupted": garrison.InstanceRunning, "ss-exhausted": garrison.InstanceDeleted}
	deadline := time.Now().Add(20 * time.Second)
	for {
		h.drain(r)
		got := map[string]garrison.InstanceStatus{}
		for name := range want {
			got[name] = must(h.store.Instance(ctx, name))(t).Status
		}
		if maps.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runners %v, want %v", got, want)
		}
		h.advance(time.Second) // past the retry backoff, by the reconciler's clock
		time.Sleep(20 * time.Millisecond)
	}
	if in := must(h.store.Instance(ctx, "ss-exhausted"))(t); in.RunnerStatus != garrison.RunnerFailed {
		t.Errorf("the exhausted runner was deleted as %s, want retired (failed)", in.RunnerStatus)
	}
	if names := h.providerNames(ss.PoolID()); !names["ss-interrupted"] || len(names) != 1 {
		t.Errorf("provider instances %v, want the retried runner only", names)
	}
}

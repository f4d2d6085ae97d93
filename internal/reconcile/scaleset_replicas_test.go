package reconcile

import (
	"errors"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// TestScaleSetRunnerStepOfAnotherReplicasPool: replica a made a scale set's runner and
// holds the scale set's pool; replica b is the one told that the runner is to go (the
// runner's callback or the API reached b). b cannot take the step while a's claim lasts,
// but looks again after half a lease instead of dropping it (nobody else would: a scale
// set's pool has no reconciles to hand its runners out), and once a's claim lapsed (a
// died) b deletes the runner. A running runner of the scale set, or a pool's instance,
// is dropped as before: nothing is pending, or the pool's holder hands it out.
func TestScaleSetRunnerStepOfAnotherReplicasPool(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	ss := must(h.store.CreateScaleSet(ctx, garrison.ScaleSet{EntityID: h.entity.ID, Name: "set", ScaleSetID: 5,
		ProviderName: "sim", Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux,
		OSArch: garrison.ArchAMD64, MaxRunners: 3, Enabled: true, RunnerGroup: "Default", RunnerPrefix: "ss"}))(t)
	for _, name := range []string{"ss-one", "ss-two"} {
		must(h.store.CreateInstance(ctx, garrison.Instance{Name: name, ScaleSetID: ss.ID, ProviderName: "sim",
			OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstancePendingCreate,
			RunnerStatus: garrison.RunnerPending, JITConfig: map[string]string{".runner": "e30="},
			MetadataURL: h.ctrl.MetadataURL, CallbackURL: h.ctrl.CallbackURL}))(t)
	}
	const aTTL = 300 * time.Millisecond
	a := h.leasedReconciler(h.prov, "replica-a", aTTL)
	a.NotifyInstances("ss-one", "ss-two")
	h.drain(a)
	must(h.store.UpdateInstance(ctx, "ss-one", func(i *garrison.Instance) error { i.Status = garrison.InstancePendingDelete; return nil }))(t)

	const bTTL = time.Hour
	b := h.leasedReconciler(h.prov, "replica-b", bTTL)
	for _, tt := range []struct {
		name string
		want time.Duration
	}{
		{"ss-one", bTTL / 2}, // pending_delete: looked at again
		{"ss-two", 0},        // running: nothing to do
	} {
		res, err := b.reconcileInstance(ctx, tt.name)
		if err != nil || res.RequeueAfter != tt.want {
			t.Errorf("b's step of %s while a holds the scale set: requeue after %v (%v), want %v", tt.name, res.RequeueAfter, err, tt.want)
		}
	}
	if in := must(h.store.Instance(ctx, "ss-one"))(t); in.Status != garrison.InstancePendingDelete {
		t.Fatalf("b acted on a's runner while a held the scale set: %s", in.Status)
	}

	time.Sleep(aTTL + 50*time.Millisecond) // a died: its claim lapses
	for range 5 {
		if _, err := b.reconcileInstance(ctx, "ss-one"); err != nil {
			t.Fatalf("b's step of ss-one after a's claim lapsed: %v", err)
		}
		if _, err := h.store.Instance(ctx, "ss-one"); errors.Is(err, garrison.ErrNotFound) {
			break
		}
	}
	if _, err := h.store.Instance(ctx, "ss-one"); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("ss-one not deleted by b once a's claim lapsed: %v", err)
	}
	if names := h.providerNames(ss.PoolID()); names["ss-one"] || !names["ss-two"] {
		t.Fatalf("provider has %v, want ss-two only", names)
	}
}

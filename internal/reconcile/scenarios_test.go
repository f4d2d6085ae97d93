package reconcile

import (
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

func TestJobBurstServedUpToMax(t *testing.T) {
	h := newHarness(t)
	p := h.pool(0, 3, "")
	for id := int64(1); id <= 5; id++ {
		h.queueJob(id)
	}
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	ins := h.instances(p.ID)
	if len(ins) != 3 {
		t.Fatalf("instances = %d, want 3 (max_runners)", len(ins))
	}
	byID := map[string]bool{}
	for _, in := range ins {
		byID[in.ID] = in.Status == garrison.InstanceRunning
	}
	locked := 0
	for id := int64(1); id <= 5; id++ {
		j := must(h.store.Job(t.Context(), id))(t)
		if byID[j.LockedBy] {
			locked++
			continue
		}
		if !strings.Contains(j.Reason, "max_runners") {
			t.Errorf("job %d: no runner and reason %q in the ledger", id, j.Reason)
		}
	}
	if locked != 3 {
		t.Fatalf("%d jobs locked to a running instance, want 3", locked)
	}
}

func TestPendingDeleteDeletedEverywhere(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 2, "")
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	victim := h.instances(p.ID)[0]
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.MinIdleRunners = 0; return nil }))(t)
	must(h.store.UpdateInstance(t.Context(), victim.Name, func(i *garrison.Instance) error {
		i.Status = garrison.InstancePendingDelete
		return nil
	}))(t)
	h.settle(r, p.ID)
	if n := len(h.instances(p.ID)); n != 0 {
		t.Fatalf("instances left = %d", n)
	}
	if h.providerNames(p.ID)[victim.Name] || h.forgeNames()[victim.Name] {
		t.Fatal("instance left in the provider or its runner in the forge")
	}
}

func TestScaleDownToMinIdle(t *testing.T) {
	h := newHarness(t)
	p := h.pool(3, 5, "")
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	for _, in := range h.instances(p.ID) {
		h.setRunner(in.Name, garrison.RunnerIdle)
	}
	busy := h.instances(p.ID)[0].Name
	h.setRunner(busy, garrison.RunnerActive)
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.MinIdleRunners = 1; return nil }))(t)
	h.settle(r, p.ID)
	if n := len(h.instances(p.ID)); n != 3 {
		t.Fatalf("scaled down within the grace period: %d instances", n)
	}
	h.advance(2 * time.Minute)
	h.settle(r, p.ID)
	ins := h.instances(p.ID)
	if len(ins) != 2 {
		t.Fatalf("instances = %d, want the busy one and one idle", len(ins))
	}
	found := false
	for _, in := range ins {
		found = found || in.Name == busy
	}
	if !found {
		t.Fatal("the busy runner was scaled down")
	}
	if n := len(h.providerNames(p.ID)); n != 2 {
		t.Fatalf("provider instances = %d", n)
	}
}

func TestBootstrapTimeoutReaped(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 2, "")
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	stuck := h.instances(p.ID)[0]
	h.setRunner(stuck.Name, garrison.RunnerInstalling)
	h.advance(10 * time.Minute)
	h.settle(r, p.ID)
	if h.instances(p.ID)[0].Name != stuck.Name {
		t.Fatal("reaped before the bootstrap timeout")
	}
	h.advance(15 * time.Minute)
	h.pass(r, p.ID) // reaps it
	h.resetClock()  // the replacement is stamped with the wall clock
	h.settle(r, p.ID)
	ins := h.instances(p.ID)
	if len(ins) != 1 || ins[0].Name == stuck.Name || ins[0].Status != garrison.InstanceRunning {
		t.Fatalf("instances = %+v, want one fresh replacement", ins)
	}
	if h.providerNames(p.ID)[stuck.Name] {
		t.Fatal("reaped instance left in the provider")
	}
}

func TestCreateFailuresRetriedThenGivenUp(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 1, `{"failure_rate": 1}`)
	r := h.reconciler(h.prov)
	for range 8 {
		h.settle(r, p.ID)
		h.advance(time.Minute)
	}
	ins := h.instances(p.ID)
	if len(ins) != 1 {
		t.Fatalf("instances = %d, want 1 (max_runners)", len(ins))
	}
	in := must(h.store.Instance(t.Context(), ins[0].Name))(t)
	if in.Status != garrison.InstanceError || in.CreateAttempt != 5 {
		t.Fatalf("status %s attempt %d, want error after 5 attempts", in.Status, in.CreateAttempt)
	}
	if !strings.Contains(string(in.ProviderFault), "simulated") {
		t.Fatalf("provider fault = %q", in.ProviderFault)
	}
	failures := 0
	for _, ev := range in.StatusMessages {
		if strings.Contains(ev.Message, "create attempt") && ev.Level == garrison.LevelError {
			failures++
		}
	}
	if failures != 5 {
		t.Fatalf("%d failed attempts recorded, want 5", failures)
	}
	if n := len(h.providerNames(p.ID)); n != 0 {
		t.Fatalf("failed creates left %d provider instances", n)
	}
	if len(h.forgeNames()) != 0 {
		t.Fatalf("failed creates left runners in the forge: %v", h.forgeNames())
	}
}

func TestForceDeleteWithFailingProvider(t *testing.T) {
	h := newHarness(t)
	p := h.pool(2, 2, "")
	h.settle(h.reconciler(h.prov), p.ID)
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.MinIdleRunners = 0; return nil }))(t)
	ins := h.instances(p.ID)
	normal, forced := ins[0].Name, ins[1].Name
	mark := func(name string, st garrison.InstanceStatus) {
		must(h.store.UpdateInstance(t.Context(), name, func(i *garrison.Instance) error { i.Status = st; return nil }))(t)
	}
	mark(normal, garrison.InstancePendingDelete)
	mark(forced, garrison.InstancePendingForceDelete)
	r := h.reconciler(failingDeletes{h.prov})
	h.settle(r, p.ID)
	left := h.instances(p.ID)
	if len(left) != 1 || left[0].Name != normal || left[0].Status != garrison.InstancePendingDelete {
		t.Fatalf("instances = %+v, want only the normal one, still pending_delete", left)
	}
	if h.forgeNames()[forced] {
		t.Fatal("force-deleted runner left in the forge")
	}
	h.advance(time.Minute) // past the delete backoff, with a working provider
	r2 := h.reconciler(h.prov)
	h.settle(r2, p.ID)
	if n := len(h.instances(p.ID)); n != 0 {
		t.Fatalf("instances = %d after the provider recovered", n)
	}
}

func TestRotateOutdated(t *testing.T) {
	h := newHarness(t)
	p := h.pool(2, 3, "")
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	ins := h.instances(p.ID)
	h.setRunner(ins[0].Name, garrison.RunnerIdle)
	h.setRunner(ins[1].Name, garrison.RunnerActive)
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.Generation++; return nil }))(t)
	n, err := r.RotateOutdated(t.Context(), p.ID)
	if err != nil || n != 1 {
		t.Fatalf("RotateOutdated = %d, %v; want 1", n, err)
	}
	h.settle(r, p.ID)
	got := map[string]uint64{}
	for _, in := range h.instances(p.ID) {
		got[in.Name] = in.Generation
	}
	if _, ok := got[ins[0].Name]; ok {
		t.Fatal("outdated idle runner not replaced")
	}
	if got[ins[1].Name] != 1 {
		t.Fatal("busy outdated runner was touched")
	}
	fresh := 0
	for _, g := range got {
		if g == 2 {
			fresh++
		}
	}
	if fresh != 2 {
		t.Fatalf("instances = %v, want two of generation 2", got)
	}
}

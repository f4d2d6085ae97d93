package reconcile

import (
	"errors"
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

func TestBootstrapTimeoutRetiredThenReplacedAfterBackoff(t *testing.T) {
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
	h.pass(r, p.ID) // retires it
	h.resetClock()  // the retirement is stamped with the wall clock
	h.settle(r, p.ID)
	ins := h.instances(p.ID)
	if len(ins) != 1 || ins[0].Name != stuck.Name || ins[0].Status != garrison.InstanceDeleted || ins[0].RunnerStatus != garrison.RunnerFailed {
		t.Fatalf("instances = %+v, want only the retired one kept as history (the replacement backs off)", ins)
	}
	if !strings.Contains(string(ins[0].ProviderFault), "bootstrap timeout") {
		t.Fatalf("fault = %q", ins[0].ProviderFault)
	}
	if h.providerNames(p.ID)[stuck.Name] || h.forgeNames()[stuck.Name] {
		t.Fatal("retired instance left in the provider or the forge")
	}
	if err := r.backoffFault(p.ID); err == nil {
		t.Fatal("pool not degraded after a failed runner")
	}
	h.advance(2 * time.Second) // past the backoff (1s in the harness)
	h.settle(r, p.ID)
	var fresh []garrison.Instance
	for _, in := range h.instances(p.ID) {
		if in.Status != garrison.InstanceDeleted {
			fresh = append(fresh, in)
		}
	}
	if len(fresh) != 1 || fresh[0].Status != garrison.InstanceRunning {
		t.Fatalf("instances = %+v, want one fresh replacement", fresh)
	}
	h.setRunner(fresh[0].Name, garrison.RunnerIdle)
	h.settle(r, p.ID)
	if err := r.backoffFault(p.ID); err != nil {
		t.Fatalf("pool still degraded after a runner came up: %v", err)
	}
}

func TestCreateFailuresExhaustedAreRetiredAndThePoolRefills(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 1, `{"failure_rate": 1}`)
	h.resetClock()
	r, err := New(Options{
		Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge}, Tokens: h.tokens,
		InjectTemplate: injectTemplate, Now: h.clock,
		Policy: Policy{RetryBackoff: time.Minute, MaxRetryBackoff: 10 * time.Minute, MaxCreateAttempts: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.listingMargin = 0
	h.settle(r, p.ID) // attempt 1 fails
	first := h.instances(p.ID)[0]
	h.advance(61 * time.Second)
	h.pass(r, p.ID) // attempt 2 fails: exhausted
	h.resetClock()
	h.settle(r, p.ID) // retired, and backing off: nothing new
	ins := h.instances(p.ID)
	if len(ins) != 1 || ins[0].Status != garrison.InstanceDeleted || ins[0].Name != first.Name {
		t.Fatalf("instances = %+v, want the exhausted one retired as history and no replacement yet", ins)
	}
	in := must(h.store.Instance(t.Context(), first.Name))(t)
	failures := 0
	for _, ev := range in.StatusMessages {
		if strings.HasPrefix(ev.Message, "create attempt ") && ev.Level == garrison.LevelError {
			failures++
		}
	}
	if failures != 2 || !strings.Contains(string(in.ProviderFault), "simulated") {
		t.Fatalf("%d failed attempts recorded, fault %q; want 2 and the provider's error", failures, in.ProviderFault)
	}
	var pf *ProviderFailingError
	if err := r.backoffFault(p.ID); !errors.As(err, &pf) || pf.Failures != 1 || !strings.Contains(pf.Fault, "simulated") {
		t.Fatalf("pool status = %v, want degraded with the provider's last error", err)
	}
	if n := len(h.providerNames(p.ID)); n != 0 || len(h.forgeNames()) != 0 {
		t.Fatalf("failed creates left %d provider instances, forge runners %v", n, h.forgeNames())
	}
	// The provider recovers; after the backoff one runner is tried and the pool refills.
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.ExtraSpecs = nil; return nil }))(t)
	h.advance(2 * time.Minute)
	h.settle(r, p.ID)
	var live []garrison.Instance
	for _, in := range h.instances(p.ID) {
		if in.Status != garrison.InstanceDeleted {
			live = append(live, in)
		}
	}
	if len(live) != 1 || live[0].Status != garrison.InstanceRunning {
		t.Fatalf("instances = %+v, want one running after the provider recovered", live)
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

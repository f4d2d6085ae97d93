package reconcile

import (
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// TestStrandedRunnersRecycled: a forge outage strands a pool's idle runners (offline
// for good). Runners online are never touched however long they idle; stranded ones are
// recycled once seen offline past the threshold, one per pass (the cap), and replaced; a
// runner the forge believes busy is never recycled. When the pool later scales that one
// down and the forge refuses to remove it as busy, garrison trusts what it saw over time
// (offline for more than twice the threshold) and deletes the instance anyway.
func TestStrandedRunnersRecycled(t *testing.T) {
	h := newHarness(t)
	p := h.pool(3, 3, "")
	// The harness clock runs ahead of the wall clock that stamps rows: a long bootstrap
	// timeout keeps the replacements from counting as late.
	p = must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.RunnerBootstrapTimeout = 600; return nil }))(t)
	r, err := New(Options{
		Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge}, Tokens: h.tokens,
		InjectTemplate: injectTemplate, Now: h.clock,
		Policy: Policy{RetryBackoff: time.Second, MaxRetryBackoff: time.Second, ScaleDownGrace: time.Minute,
			StrandedAfter: 10 * time.Minute, StrandedPerPass: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.listingMargin = 0
	h.settle(r, p.ID)
	first := map[string]bool{}
	for _, in := range h.instances(p.ID) {
		h.setRunner(in.Name, garrison.RunnerIdle)
		first[in.Name] = true
	}
	for _, rn := range h.sim.Runners() { // the runners connect: online
		if _, err := h.sim.Acquire(rn.Name, rn.Secret); err != nil {
			t.Fatal(err)
		}
	}
	repair := func() {
		t.Helper()
		h.advance(13 * time.Minute) // past the threshold and its jitter, and the listing cache
		if _, err := r.repairPool(t.Context(), p.ID); err != nil {
			t.Fatal(err)
		}
		h.drain(r)
	}
	repair()
	repair()
	if n := len(h.instances(p.ID)); n != 3 || h.statusCount(p.ID)[garrison.InstanceRunning] != 3 {
		t.Fatalf("online idle runners were touched: %v", h.statusCount(p.ID))
	}
	names := make([]string, 0, 3)
	for n := range first {
		names = append(names, n)
	}
	busy := names[2]
	if h.sim.StrandRunners(false, names[0], names[1]) != 2 || h.sim.StrandRunners(true, busy) != 1 {
		t.Fatal("stranding the runners")
	}
	gone := func() (n int) {
		live := map[string]bool{}
		for _, in := range h.instances(p.ID) {
			live[in.Name] = true
		}
		for name := range first {
			if !live[name] {
				n++
			}
		}
		return n
	}
	repair() // first seen offline
	if gone() != 0 {
		t.Fatal("recycled on the first sight of an offline runner")
	}
	repair() // past the threshold: one (the cap)
	if gone() != 1 {
		t.Fatalf("%d runners recycled in one pass, want 1 (the cap)", gone())
	}
	repair()
	if gone() != 2 {
		t.Fatalf("%d runners recycled after two passes, want 2", gone())
	}
	if must(h.store.Instance(t.Context(), busy))(t).Status != garrison.InstanceRunning {
		t.Fatal("the runner the forge believes busy was recycled")
	}
	h.settle(r, p.ID)
	if c := h.statusCount(p.ID); c[garrison.InstanceRunning] != 3 || len(c) != 1 {
		t.Fatalf("pool not refilled: %v", c)
	}
	for name := range first {
		if name != busy && (h.providerNames(p.ID)[name] || h.forgeNames()[name]) {
			t.Errorf("recycled %s left in the provider or the forge", name)
		}
	}

	// Scale the pool down: the forge refuses to remove the busy-believed runner, yet it
	// has been offline for far longer than twice the threshold.
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.MinIdleRunners = 0; return nil }))(t)
	for _, in := range h.instances(p.ID) {
		h.setRunner(in.Name, garrison.RunnerIdle)
	}
	h.advance(2 * time.Minute)
	h.settle(r, p.ID)
	if _, err := h.store.Instance(t.Context(), busy); err == nil {
		t.Fatal("the stranded runner the forge refuses to remove is still there")
	}
	if h.providerNames(p.ID)[busy] {
		t.Fatal("its instance is left in the provider")
	}
}

// TestRenamedInstancesMatchedByProviderID: a provider that reports an instance under
// another name than asked keeps it; every later repair matches the instance by its
// provider id instead of deleting the "stray" and closing the "vanished" record.
func TestRenamedInstancesMatchedByProviderID(t *testing.T) {
	h := newHarness(t)
	p := h.pool(2, 2, `{"rename_suffix": "-own"}`)
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	want := map[string]bool{}
	for _, in := range h.instances(p.ID) {
		want[in.Name] = true
		if in.Status != garrison.InstanceRunning || in.ProviderID != "sim-"+in.Name {
			t.Fatalf("instance %s: %s, provider id %q", in.Name, in.Status, in.ProviderID)
		}
	}
	for range 3 {
		h.advance(time.Minute)
		if _, err := r.repairPool(t.Context(), p.ID); err != nil {
			t.Fatal(err)
		}
		h.drain(r)
		h.settle(r, p.ID)
	}
	got := map[string]bool{}
	for _, in := range h.instances(p.ID) {
		got[in.Name] = in.Status == garrison.InstanceRunning
	}
	if len(got) != len(want) {
		t.Fatalf("instances after three repairs %v, want the same %v", got, want)
	}
	for name := range want {
		if !got[name] {
			t.Fatalf("instance %s was replaced or moved: %v", name, got)
		}
		if !h.providerNames(p.ID)[name+"-own"] {
			t.Fatalf("the provider lost %s-own: %v", name, h.providerNames(p.ID))
		}
	}
}

package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// TestDisabledPoolDropsQueuedCreates: creates planned while the pool was enabled are not
// carried out once it is disabled: each step re-reads the pool before acting.
func TestDisabledPoolDropsQueuedCreates(t *testing.T) {
	h := newHarness(t)
	p := h.pool(2, 3, "")
	r := h.reconciler(h.prov)
	if _, err := r.reconcile(t.Context(), p.ID); err != nil { // plans two creates
		t.Fatal(err)
	}
	if n := len(h.instances(p.ID)); n != 2 {
		t.Fatalf("instances requested = %d, want 2", n)
	}
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.Enabled = false; return nil }))(t)
	if n := r.instances.ProcessReady(t.Context()); n != 2 {
		t.Fatalf("steps run = %d, want 2", n)
	}
	if ins := h.instances(p.ID); len(ins) != 0 {
		t.Fatalf("instances = %+v, want the requests dropped", ins)
	}
	if names := h.providerNames(p.ID); len(names) != 0 {
		t.Fatalf("provider created %v for a disabled pool", names)
	}
	if names := h.forgeNames(); len(names) != 0 {
		t.Fatalf("runners registered for a disabled pool: %v", names)
	}
}

// panicOnce is a Provider whose first CreateInstance panics.
type panicOnce struct {
	Provider
	panicked atomic.Bool
}

func (p *panicOnce) CreateInstance(ctx context.Context, bi provider.BootstrapInstance, specs json.RawMessage) (provider.ProviderInstance, error) {
	if p.panicked.CompareAndSwap(false, true) {
		panic("provider adapter bug")
	}
	return p.Provider.CreateInstance(ctx, bi, specs)
}

// TestPanicInAStepIsRecovered: a panic in an instance step is recovered by the instances
// controller; the instance it left in creating is resolved and retried like after a
// crash, and the pool gets its runner.
func TestPanicInAStepIsRecovered(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 1, "")
	prov := &panicOnce{Provider: h.prov}
	r := h.reconciler(prov)
	if _, err := r.reconcile(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	r.instances.ProcessReady(t.Context()) // the step panics; the queue recovers
	if !prov.panicked.Load() {
		t.Fatal("the provider was not called")
	}
	ins := h.instances(p.ID)
	if len(ins) != 1 || ins[0].Status != garrison.InstanceCreating {
		t.Fatalf("instances = %+v, want one left in creating", ins)
	}
	r2 := h.reconciler(prov) // the failure's backoff belongs to the first reconciler's queue
	h.settle(r2, p.ID)       // resolved: not in the provider, so a failed attempt
	h.advance(time.Minute)   // past the retry backoff
	h.settle(r2, p.ID)
	ins = h.instances(p.ID)
	if len(ins) != 1 || ins[0].Status != garrison.InstanceRunning || ins[0].CreateAttempt != 2 {
		t.Fatalf("instances = %+v, want one running after a second attempt", ins)
	}
}

// failingCreates is a provider whose CreateInstance always fails.
type failingCreates struct{ Provider }

func (failingCreates) CreateInstance(context.Context, provider.BootstrapInstance, json.RawMessage) (provider.ProviderInstance, error) {
	return provider.ProviderInstance{}, errors.New("test: create refused")
}

// TestCreateNotifiesPoolOnlyWithNews: a runner created as planned in a healthy pool
// gives its plan nothing new, so the pool is not reconciled again for it (a burst of
// 1,000 jobs made 5,000 pool reconciles); a failed create is news, and is looked at.
func TestCreateNotifiesPoolOnlyWithNews(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prov     func(h *harness) Provider
		wantPool bool
	}{
		{"created as planned", func(h *harness) Provider { return h.prov }, false},
		{"create failed", func(h *harness) Provider { return failingCreates{h.prov} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			r := h.reconciler(tc.prov(h))
			p := h.pool(2, 4, "")
			if _, err := r.reconcile(t.Context(), p.ID); err != nil {
				t.Fatal(err)
			}
			if steps := h.drain(r); steps < 2 {
				t.Fatalf("%d instance steps ran, want the 2 creates", steps)
			}
			if got := r.pools.Has(p.ID); got != tc.wantPool {
				t.Errorf("pool queued again after the creates: %v, want %v", got, tc.wantPool)
			}
		})
	}
}

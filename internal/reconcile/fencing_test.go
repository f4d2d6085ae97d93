package reconcile

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/provider"
)

// pausingProvider runs after each create it makes, as a replica that stops right after
// the provider answered (a GC pause, a SIGSTOP) and before it records the answer.
type pausingProvider struct {
	Provider
	afterCreate func()
}

func (p pausingProvider) CreateInstance(ctx context.Context, bi provider.BootstrapInstance, specs json.RawMessage) (provider.ProviderInstance, error) {
	pi, err := p.Provider.CreateInstance(ctx, bi, specs)
	p.afterCreate()
	return pi, err
}

// leasedReconciler is a reconciler of the harness that claims pools as holder.
func (h *harness) leasedReconciler(p Provider, holder string, ttl time.Duration) *Reconciler {
	r, err := New(Options{Store: h.store, Providers: ProviderMap{"sim": {Provider: p}}, Forges: oneForge{h.forge},
		Tokens: h.tokens, InjectTemplate: injectTemplate, Now: h.clock, Leases: h.store, Holder: holder, LeaseTTL: ttl,
		Policy: Policy{RetryBackoff: time.Second, MaxRetryBackoff: time.Second, ScaleDownGrace: time.Minute}})
	if err != nil {
		h.t.Fatal(err)
	}
	r.listingMargin = 0
	return r
}

// TestPausedReplicaCannotRecordItsCreate: replica a pauses between the provider's answer
// and recording it, past its pool lease; replica b takes the pool over. a's record of
// the created instance is refused (counted), and b resolves the instance from the
// provider: one instance, running, recorded once.
func TestPausedReplicaCannotRecordItsCreate(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 2, "")
	tookOver := false
	slow := pausingProvider{Provider: h.prov, afterCreate: func() {
		// a's lease (1 ms) lapsed during the provider call: b takes the pool over.
		if _, held, err := h.store.Lease(t.Context(), store.PoolClaim(p.ID), "replica-b", time.Hour); err != nil || !held {
			t.Errorf("replica b's takeover: %v %v", held, err)
		}
		tookOver = true
	}}
	a := h.leasedReconciler(slow, "replica-a", time.Millisecond)
	a.renewEvery = time.Hour // paused: it renews nothing either
	h.pass(a, p.ID)
	if !tookOver {
		t.Fatal("replica a made no create")
	}
	ins := h.instances(p.ID)
	if len(ins) != 1 || ins[0].Status != garrison.InstanceCreating {
		t.Fatalf("after a's paused create: %+v, want one instance still creating", ins)
	}
	if n := h.store.FencingRefusals()[store.ClaimPool]; n == 0 {
		t.Fatal("no fencing refusal counted")
	}
	// a's next look finds the pool taken and leaves it alone.
	if _, err := a.reconcile(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	if a.holds(p.ID) || a.HeldPools() != 0 {
		t.Fatal("replica a still believes it holds the pool")
	}
	b := h.leasedReconciler(h.prov, "replica-b", time.Hour)
	h.settle(b, p.ID)
	ins = h.instances(p.ID)
	if len(ins) != 1 || ins[0].Status != garrison.InstanceRunning {
		t.Fatalf("after b took over: %+v, want the one instance running", ins)
	}
	if names := h.providerNames(p.ID); len(names) != 1 || !names[ins[0].Name] {
		t.Fatalf("provider has %v, want only %s", names, ins[0].Name)
	}
}

// TestLongStepKeepsItsClaim: a create that outlasts the pool lease several times over
// (a slow provider) keeps the claim, renewed while the step runs: another replica cannot
// take the pool over meanwhile, and the step records its instance unfenced. Without the
// renewals the other replica would take the pool, and every holder's step as long as
// this one would be fenced at its end, over and over.
func TestLongStepKeepsItsClaim(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 2, "")
	const ttl = 500 * time.Millisecond
	var bTook bool
	slow := pausingProvider{Provider: h.prov, afterCreate: func() {
		time.Sleep(3 * ttl) // the step runs on, three leases long
		_, held, err := h.store.Lease(t.Context(), store.PoolClaim(p.ID), "replica-b", time.Hour)
		if err != nil {
			t.Errorf("replica b's claim: %v", err)
		}
		bTook = held
	}}
	a := h.leasedReconciler(slow, "replica-a", ttl)
	h.pass(a, p.ID)
	if bTook {
		t.Fatal("replica b took the pool over while replica a's step ran")
	}
	if n := h.store.FencingRefusals()[store.ClaimPool]; n != 0 {
		t.Fatalf("%d fencing refusals, want none", n)
	}
	ins := h.instances(p.ID)
	if len(ins) != 1 || ins[0].Status != garrison.InstanceRunning {
		t.Fatalf("after the long create: %+v, want one instance running", ins)
	}
	if !a.holds(p.ID) {
		t.Fatal("replica a no longer believes it holds the pool")
	}
}

// TestStoppingReplicaReleasesItsPools: when the reconciler stops, the pool leases it
// holds are given up, so another replica takes the pools at once (with a newer token).
func TestStoppingReplicaReleasesItsPools(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 2, "")
	a := h.leasedReconciler(h.prov, "replica-a", time.Hour)
	h.settle(a, p.ID)
	if a.HeldPools() != 1 {
		t.Fatalf("replica a holds %d pools, want 1", a.HeldPools())
	}
	before, _, err := h.store.Lease(t.Context(), store.PoolClaim(p.ID), "replica-a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_ = a.Run(ctx) // stopped before it began: its first read fails
	if a.HeldPools() != 0 {
		t.Fatal("replica a still holds pools after it stopped")
	}
	f, held, err := h.store.Lease(t.Context(), store.PoolClaim(p.ID), "replica-b", time.Hour)
	if err != nil || !held || f.Token <= before.Token {
		t.Fatalf("replica b's claim after a stopped: held %v, token %d after %d, %v", held, f.Token, before.Token, err)
	}
}

package reconcile

import (
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// TestDeleteWaitsForBusyRunner: a runner marked for deletion whose forge runner is busy
// (it took a job between the plan and the delete) is refused by the forge. The deletion
// waits without asking the forge again on every look, the wait grows with each refusal,
// and once the runner finished its job the next look deletes the instance at once: the
// wait is no failure backoff that would hold it for minutes after the job ended.
func TestDeleteWaitsForBusyRunner(t *testing.T) {
	h := newHarness(t)
	p := h.pool(1, 1, "")
	r, err := New(Options{
		Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge}, Tokens: h.tokens,
		InjectTemplate: injectTemplate, Now: h.clock,
		// A failure backoff of minutes: a refusal that counted as one would hold the key.
		Policy: Policy{RetryBackoff: time.Minute, MaxRetryBackoff: time.Hour, ScaleDownGrace: time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.listingMargin = 0
	h.settle(r, p.ID)
	ins := h.instances(p.ID)
	if len(ins) != 1 || ins[0].Status != garrison.InstanceRunning {
		t.Fatalf("instances %+v, want one running", ins)
	}
	name := ins[0].Name
	if h.sim.StrandRunners(true, name) != 1 { // the forge believes it busy
		t.Fatal("making the forge runner busy")
	}
	deletes := func() (n int) {
		for k, c := range h.sim.Calls() {
			if strings.HasPrefix(k.Route, "DELETE ") && strings.Contains(k.Route, "/actions/runners/") {
				n += c
			}
		}
		return n
	}
	must(h.store.UpdateInstance(t.Context(), name, func(i *garrison.Instance) error { i.Status = garrison.InstancePendingDelete; return nil }))(t)

	for _, tt := range []struct {
		advance time.Duration
		asks    int // the forge's refusals so far
	}{
		{0, 1},                // refused
		{30 * time.Second, 1}, // within the first wait (1m): the forge is not asked
		{31 * time.Second, 2}, // past it: refused again, now waiting 2m
		{time.Minute, 2},      // within the second wait
		{61 * time.Second, 3}, // past it
	} {
		h.advance(tt.advance)
		r.instances.Add(name) // what the pool's plan does on every look
		h.drain(r)
		in := must(h.store.Instance(t.Context(), name))(t)
		if in.Status != garrison.InstancePendingDelete || deletes() != tt.asks {
			t.Fatalf("after %v more: instance %s, forge asked %d times; want pending_delete, %d", tt.advance, in.Status, deletes(), tt.asks)
		}
		if !r.instances.Has(name) {
			t.Fatalf("after %v more: the deletion is not scheduled again", tt.advance)
		}
	}

	// The runner runs its job to the end: the forge removes it, the completed webhook marks
	// it terminated. The next look deletes it, without waiting out anything.
	must(h.store.UpdateInstance(t.Context(), name, func(i *garrison.Instance) error {
		i.RunnerStatus, i.JobID = garrison.RunnerTerminated, 42
		return nil
	}))(t)
	r.instances.Add(name)
	h.drain(r)
	if _, err := h.store.Instance(t.Context(), name); err == nil {
		t.Fatal("the instance is still there after its runner finished the job")
	}
	if h.providerNames(p.ID)[name] {
		t.Error("its instance is left in the provider")
	}
	if deletes() != 3 {
		t.Errorf("the forge was asked %d times in all, want 3 (the finished runner is not deregistered)", deletes())
	}
}

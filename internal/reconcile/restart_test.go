package reconcile

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

func TestRestartRepairsStoreProviderAndForge(t *testing.T) {
	h := newHarness(t)
	p := h.pool(0, 5, "")
	ctx := t.Context()
	inProvider := func(name string) {
		bi := provider.BootstrapInstance{Name: name, PoolID: p.ID, OSType: "linux", OSArch: "amd64"}
		must(h.prov.CreateInstance(ctx, bi, nil))(t)
	}
	inStore := func(name string, st garrison.InstanceStatus) {
		must(h.store.CreateInstance(ctx, garrison.Instance{Name: name, PoolID: p.ID, ProviderName: "sim",
			Status: st, RunnerStatus: garrison.RunnerPending, CreateAttempt: 1, Generation: 1}))(t)
	}
	inProvider("garm-stray")                            // provider only: deleted in the provider
	inStore("garm-vanished", garrison.InstanceRunning)  // store only: closed
	inProvider("garm-halfway")                          // creating when the old process died,
	inStore("garm-halfway", garrison.InstanceCreating)  // and the provider has it: running
	inStore("garm-lost", garrison.InstanceCreating)     // creating, provider never made it: retried
	inProvider("garm-deleting")                         // deleting when the old process died:
	inStore("garm-deleting", garrison.InstanceDeleting) // deleted again
	ghost := must(h.forge.CreateJITConfig(ctx, h.entity, JITRequest{Name: "garm-ghost", Labels: []string{"linux"}}))(t)
	if ghost.RunnerID == 0 {
		t.Fatal("no ghost runner")
	}

	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	h.advance(time.Minute) // past the retry backoff of garm-lost
	h.settle(r, p.ID)

	got := map[string]garrison.InstanceStatus{}
	for _, in := range h.instances(p.ID) {
		got[in.Name] = in.Status
	}
	want := map[string]garrison.InstanceStatus{"garm-halfway": garrison.InstanceRunning, "garm-lost": garrison.InstanceRunning}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("store = %v, want %v", got, want)
	}
	names := h.providerNames(p.ID)
	if len(names) != 2 || !names["garm-halfway"] || !names["garm-lost"] {
		t.Fatalf("provider = %v", names)
	}
	if h.forgeNames()["garm-ghost"] {
		t.Fatal("ghost runner still registered")
	}
}

func TestRestartInTheMiddleOfCreates(t *testing.T) {
	h := newHarness(t)
	p := h.pool(2, 2, `{"boot_delay": "30s"}`)
	r1 := h.reconciler(h.prov)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r1.Run(ctx) }()
	for creating := 0; creating < 2; {
		time.Sleep(20 * time.Millisecond)
		creating = 0
		for _, in := range h.instances(p.ID) {
			if in.Status == garrison.InstanceCreating {
				creating++
			}
		}
	}
	cancel() // the process "crashes" with two creates in flight
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.ExtraSpecs = nil; return nil }))(t)

	r2 := h.reconciler(h.prov)
	h.settle(r2, p.ID)
	h.advance(time.Minute)
	h.settle(r2, p.ID)
	ins := h.instances(p.ID)
	names := h.providerNames(p.ID)
	if len(ins) != 2 || len(names) != 2 {
		t.Fatalf("store has %d instances, provider %d; want 2 and 2", len(ins), len(names))
	}
	for _, in := range ins {
		if in.Status != garrison.InstanceRunning || !names[in.Name] || in.CreateAttempt != 2 {
			t.Fatalf("instance %s: %s attempt %d, in provider %v", in.Name, in.Status, in.CreateAttempt, names[in.Name])
		}
	}
}

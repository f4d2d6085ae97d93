package reconcile

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
	ghost := must(h.forge.CreateJITConfig(ctx, h.entity, garrison.JITRequest{Name: "garm-ghost", Labels: []string{"linux"}}))(t)
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

// listHook is a Provider that runs a function while it lists the pool's instances.
type listHook struct {
	Provider
	during func()
}

func (l listHook) ListInstances(ctx context.Context, t provider.Target) ([]provider.ProviderInstance, error) {
	list, err := l.Provider.ListInstances(ctx, t)
	l.during()
	return list, err
}

// TestRepairSparesInstancesChangedDuringTheListing: a record written while the provider
// lists (an operation that finished meanwhile) is not judged by that listing; an older
// record the provider lacks is closed.
func TestRepairSparesInstancesChangedDuringTheListing(t *testing.T) {
	h := newHarness(t)
	p := h.pool(0, 5, "")
	ctx := t.Context()
	add := func(name string) {
		must(h.store.CreateInstance(ctx, garrison.Instance{Name: name, PoolID: p.ID, ProviderName: "sim",
			Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle, CreateAttempt: 1, Generation: 1}))(t)
	}
	add("garm-old")
	time.Sleep(5 * time.Millisecond) // garm-old was last changed before the listing began
	r := h.reconciler(listHook{Provider: h.prov, during: func() { add("garm-fresh") }})
	h.pass(r, p.ID) // plans, and repairs in the background; pass waits for both

	got := map[string]garrison.InstanceStatus{}
	for _, in := range h.instances(p.ID) {
		got[in.Name] = in.Status
	}
	if got["garm-fresh"] != garrison.InstanceRunning {
		t.Errorf("garm-fresh (written during the listing) is %q, want running", got["garm-fresh"])
	}
	if st := got["garm-old"]; st == garrison.InstanceRunning {
		t.Errorf("garm-old (missing from the provider before the listing) is still running")
	}
}

// TestFirstPassLogged: Run logs when every pool has been reconciled, then repaired, once
// since the start; garrison bench times restarts by these lines.
func TestFirstPassLogged(t *testing.T) {
	h := newHarness(t)
	for range 3 {
		h.pool(0, 2, "")
	}
	var buf syncBuffer
	reg := prometheus.NewRegistry()
	r, err := New(Options{Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge},
		Tokens: h.tokens, InjectTemplate: injectTemplate, Logger: slog.New(slog.NewTextHandler(&buf, nil)), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(buf.String(), stepMessages[stepRepaired]) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	planned, repaired := strings.Index(out, stepMessages[stepPlanned]), strings.Index(out, stepMessages[stepRepaired])
	if planned < 0 || repaired < 0 || strings.Count(out, stepMessages[stepPlanned]) != 1 {
		t.Fatalf("first-pass lines missing or repeated:\n%s", out)
	}
	got := gatherValues(t, reg)
	p, rp := got[`garrison_reconcile_first_pass_seconds{step="planned"}`], got[`garrison_reconcile_first_pass_seconds{step="repaired"}`]
	if p <= 0 || rp < p {
		t.Errorf("first pass gauges: planned %v, repaired %v", p, rp)
	}
	pAt := got[`garrison_reconcile_first_pass_completed_timestamp_seconds{step="planned"}`]
	rAt := got[`garrison_reconcile_first_pass_completed_timestamp_seconds{step="repaired"}`]
	if now := float64(time.Now().Unix()); pAt < now-600 || pAt > now+1 || rAt < pAt {
		t.Errorf("first pass completion times: planned %v, repaired %v (now %v)", pAt, rAt, now)
	}
	for _, name := range []string{"pools", "instances", "repairs", "resync"} {
		if _, ok := got[`controller_runtime_max_concurrent_reconciles{controller="`+name+`"}`]; !ok {
			t.Errorf("no metrics for the %s controller", name)
		}
	}
	if got[`controller_runtime_reconcile_total{controller="repairs",result="requeue_after"}`] != 3 {
		t.Errorf("repairs counted: %v", got)
	}
}

// gatherValues returns every series of reg, by name{label="value",...}.
func gatherValues(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = v
		}
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// countingForge counts ListRunners calls.
type countingForge struct {
	Forge
	mu    sync.Mutex
	lists int
}

func (c *countingForge) ListRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error) {
	c.mu.Lock()
	c.lists++
	c.mu.Unlock()
	return c.Forge.ListRunners(ctx, e)
}

// TestRepairsShareTheEntityRunnerListing: the repairs of an entity's pools list its forge
// runners once per runnerListTTL, not once per pool.
func TestRepairsShareTheEntityRunnerListing(t *testing.T) {
	h := newHarness(t)
	pools := []garrison.Pool{h.pool(0, 2, ""), h.pool(0, 2, ""), h.pool(0, 2, "")}
	cf := &countingForge{Forge: h.forge}
	r, err := New(Options{Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{cf},
		Tokens: h.tokens, InjectTemplate: injectTemplate, Now: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pools {
		h.pass(r, p.ID) // the first reconcile of each pool repairs it
	}
	if cf.lists != 1 {
		t.Fatalf("forge listings for 3 pools' repairs = %d, want 1", cf.lists)
	}
	h.advance(6 * time.Minute) // the listing is stale
	for _, p := range pools {
		r.repairs.Add(p.ID) // as the repair's timer does after RepairInterval
		h.pass(r, p.ID)
	}
	if cf.lists != 2 {
		t.Fatalf("forge listings after the TTL = %d, want 2", cf.lists)
	}
}

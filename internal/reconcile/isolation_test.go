package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/provider"
)

// hangingProvider is the sim provider executable configured to hang in every
// CreateInstance; its listings and deletions hang too, until the call is cancelled.
type hangingProvider struct{ Provider }

func (hangingProvider) ListInstances(ctx context.Context, _ provider.Target) ([]provider.ProviderInstance, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hangingProvider) DeleteInstance(ctx context.Context, _ provider.Target) error {
	<-ctx.Done()
	return ctx.Err()
}

// newHangingProvider runs the sim provider with hang = true and a state dir of its own.
func (h *harness) newHangingProvider() Provider {
	dir := h.t.TempDir()
	cfg := filepath.Join(dir, "sim.toml")
	if err := os.WriteFile(cfg, []byte("state_dir = \""+dir+"\"\nhang = true\n"), 0o600); err != nil {
		h.t.Fatal(err)
	}
	p, err := providerexec.New(providerexec.Config{Name: "hung", Executable: buildSim(h.t), ConfigFile: cfg,
		InterfaceVersion: provider.InterfaceV011, ControllerID: h.ctrl.ID})
	if err != nil {
		h.t.Fatal(err)
	}
	return hangingProvider{p}
}

// rateLimitedEntity adds a repository on a second forge simulator whose credentials get
// one call per hour, and returns the entity and its forge.
func (h *harness) rateLimitedEntity() (garrison.Entity, Forge, *forgesim.Sim) {
	ctx := h.t.Context()
	sim := forgesim.New(forgesim.Options{RateLimit: forgesim.RateLimitOptions{Limit: 1, Window: time.Hour}})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken("pat-2")
	sim.AddOrg("limited")
	if err := sim.AddRepo("limited/app"); err != nil {
		h.t.Fatal(err)
	}
	ep := must(h.store.CreateEndpoint(ctx, garrison.Endpoint{Name: "limited", Type: garrison.GitHub, BaseURL: url,
		APIBaseURL: url + "/", UploadBaseURL: url + "/"}))(h.t)
	cr := must(h.store.CreateCredentials(ctx, garrison.Credentials{Name: "limited", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: ep.Name, PAT: "pat-2"}))(h.t)
	e := must(h.store.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "limited", Name: "app",
		CredentialsID: cr.ID, Balancer: garrison.RoundRobin}))(h.t)
	client, err := github.New(ep, cr, github.Options{ExactAPIBaseURL: true})
	if err != nil {
		h.t.Fatal(err)
	}
	return must(h.store.Entity(ctx, e.ID))(h.t), client, sim
}

// forgeMap serves each entity's forge.
type forgeMap map[string]Forge

func (m forgeMap) Forge(_ context.Context, e garrison.Entity) (Forge, error) { return m[e.ID], nil }

// statusCount counts the pool's instances by status.
func (h *harness) statusCount(poolID string) map[garrison.InstanceStatus]int {
	out := map[garrison.InstanceStatus]int{}
	for _, in := range must(h.store.ListInstances(h.t.Context(), store.InstanceFilter{PoolID: poolID}))(h.t) {
		out[in.Status]++
	}
	return out
}

// TestIsolation: a provider that hangs on every call and a credential that is rate
// limited slow only their own pools. Next to them a healthy pool, sharing the hung
// pool's credentials and the rate-limited pool's provider, gets its runners, deletes
// them and gets new ones, while the hung provider's budget stays full with more creates
// waiting for it and the rate-limited pool's creates wait for the reset.
func TestIsolation(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	limited, limitedForge, limitedSim := h.rateLimitedEntity()
	mkPool := func(e garrison.Entity, prov string, minIdle uint) garrison.Pool {
		return must(h.store.CreatePool(ctx, garrison.Pool{EntityID: e.ID, ProviderName: prov, RunnerPrefix: "garm",
			MaxRunners: minIdle, MinIdleRunners: minIdle, Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux,
			OSArch: garrison.ArchAMD64, Tags: garrison.TagsFromNames([]string{"self-hosted", prov}), Enabled: true, Generation: 1}))(t)
	}
	const hungCreates, providerBudget = 12, 8
	hung := mkPool(h.entity, "hung", hungCreates)
	slow := mkPool(limited, "sim", 2)
	healthy := mkPool(h.entity, "sim", 2)

	r, err := New(Options{Store: h.store, Tokens: h.tokens, InjectTemplate: injectTemplate,
		Providers:           ProviderMap{"sim": {Provider: h.prov}, "hung": {Provider: h.newHangingProvider()}},
		Forges:              forgeMap{h.entity.ID: h.forge, limited.ID: limitedForge},
		ProviderConcurrency: providerBudget, CredentialConcurrency: providerBudget, InstanceWorkers: 16})
	if err != nil {
		t.Fatal(err)
	}
	// The credential's one call of the hour is spent before the reconciler starts: which
	// of the pool's first create and its repair's runner listing would get it is a race,
	// and a create that got it would go on to make its runner.
	if _, err := limitedForge.ListRunners(ctx, limited); err != nil {
		t.Fatalf("spending the rate-limited credential's call: %v", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// The hung provider's budget is full: its creates hang (and its repair's listing),
	// and the remaining creates wait for a slot.
	stuck := func() bool {
		id, _ := budgetIDOf(hung)
		inUse, waiting := r.budgets.state(id)
		return inUse == providerBudget && waiting > 0 &&
			h.statusCount(hung.ID)[garrison.InstanceCreating] >= providerBudget-1
	}
	waitFor(t, "the hung provider's budget to fill up", stuck)
	waitFor(t, "the healthy pool's runners", func() bool { return h.statusCount(healthy.ID)[garrison.InstanceRunning] == 2 })

	first := h.instances(healthy.ID)
	for _, in := range first {
		must(h.store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error { i.Status = garrison.InstancePendingDelete; return nil }))(t)
	}
	r.Notify(healthy.ID)
	waitFor(t, "the healthy pool to delete its runners and get new ones", func() bool {
		ins := h.instances(healthy.ID)
		running := 0
		for _, in := range ins {
			if in.Name == first[0].Name || in.Name == first[1].Name {
				return false
			}
			if in.Status == garrison.InstanceRunning {
				running++
			}
		}
		return running == 2
	})
	for _, in := range first {
		if h.providerNames(healthy.ID)[in.Name] {
			t.Errorf("deleted runner %s is still in the provider", in.Name)
		}
	}

	// The rate-limited pool's creates have been refused and wait for the reset: each is
	// held by the instances controller, holding no worker and no budget.
	held := func() bool {
		ins := h.instances(slow.ID)
		for _, in := range ins {
			if !r.instances.Has(in.Name) || r.instanceBusy(in.Name) {
				return false
			}
		}
		return len(ins) == 2
	}
	waitFor(t, "the rate-limited pool's creates to wait for the reset", held)

	if !stuck() {
		t.Errorf("the hung pool is no longer stuck: %v", h.statusCount(hung.ID))
	}
	if got := h.statusCount(slow.ID); got[garrison.InstancePendingCreate] != 2 || len(got) != 1 {
		t.Errorf("rate-limited pool instances %v, want two waiting in pending_create", got)
	}
	// The client learned the reset from the answer to the test's own call: neither the
	// creates nor the pool's repair called the forge again.
	jit, other := 0, 0
	for call, n := range limitedSim.Calls() {
		if strings.HasSuffix(call.Route, "/generate-jitconfig") {
			jit += n
		} else {
			other += n
		}
	}
	if jit > 0 || other > 1 {
		t.Errorf("the rate-limited forge was called %d times for JIT configs and %d for the rest (the test's own listing included): %v", jit, other, limitedSim.Calls())
	}
}

// budgetIDOf names a pool's provider budget.
func budgetIDOf(p garrison.Pool) (budgetID, string) {
	return budgetID{budgetProvider, p.ProviderName}, p.ProviderName
}

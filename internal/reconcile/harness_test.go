package reconcile

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// simBinary is the sim provider, built once per test binary.
var simBinary = struct {
	once sync.Once
	path string
}{}

func buildSim(t testing.TB) string {
	simBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "reconcile-sim-")
		if err != nil {
			t.Fatal(err)
		}
		bt := &buildT{TB: t, dir: dir}
		simBinary.path = providertest.Build(bt, "github.com/garrison-ci/garrison/providers/sim")
	})
	if simBinary.path == "" {
		t.Fatal("sim provider did not build")
	}
	return simBinary.path
}

// buildT gives providertest.Build a temp dir that outlives the first test.
type buildT struct {
	testing.TB
	dir string
}

func (b *buildT) TempDir() string { return b.dir }

type oneForge struct{ f Forge }

func (o oneForge) Forge(context.Context, garrison.Entity) (Forge, error) { return o.f, nil }

// failingDeletes is a provider whose DeleteInstance always fails.
type failingDeletes struct{ Provider }

var errDeleteRefused = errors.New("test: delete refused")

func (failingDeletes) DeleteInstance(context.Context, provider.Target) error {
	return errDeleteRefused
}

// harness is a real SQLite store, the sim provider through providerexec, and the forge
// simulator through the GitHub client, with an injected clock.
type harness struct {
	t        testing.TB
	store    *sqlite.Store
	sim      *forgesim.Sim
	prov     *providerexec.Provider
	stateDir string
	entity   garrison.Entity
	ctrl     garrison.Controller
	forge    Forge
	tokens   *auth.Tokens

	mu  sync.Mutex // guards now
	now time.Time
}

func newHarness(t testing.TB) *harness {
	ctx := t.Context()
	h := &harness{t: t, now: time.Now().UTC()}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	h.store = st
	h.sim = forgesim.New(forgesim.Options{})
	url, err := h.sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.sim.Close() })
	h.sim.AddToken("pat-1")
	h.sim.AddOrg("acme")
	if err := h.sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	ep := must(st.CreateEndpoint(ctx, garrison.Endpoint{Name: "sim", Type: garrison.GitHub, BaseURL: url, APIBaseURL: url + "/", UploadBaseURL: url + "/"}))(t)
	cr := must(st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: garrison.GitHub, AuthType: garrison.AuthPAT, Endpoint: ep.Name, PAT: "pat-1"}))(t)
	h.entity = must(st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app", CredentialsID: cr.ID, Balancer: garrison.RoundRobin}))(t)
	h.entity = must(st.Entity(ctx, h.entity.ID))(t)
	h.ctrl = must(st.UpdateController(ctx, func(c *garrison.Controller) error {
		c.MetadataURL, c.CallbackURL = "http://127.0.0.1:1/api/v1/metadata", "http://127.0.0.1:1/api/v1/callbacks"
		return nil
	}))(t)
	client, err := github.New(ep, cr, github.Options{ExactAPIBaseURL: true})
	if err != nil {
		t.Fatal(err)
	}
	h.forge = client // the GitHub client is a Forge as it is
	h.tokens, _ = auth.NewTokens([]byte("test secret"), time.Hour, nil)
	h.prov = h.newProvider()
	return h
}

// newProvider runs the sim provider with a state dir kept for the whole test.
func (h *harness) newProvider() *providerexec.Provider {
	if h.stateDir == "" {
		h.stateDir = h.t.TempDir()
	}
	cfg := filepath.Join(h.stateDir, "sim.toml")
	if err := os.WriteFile(cfg, []byte("state_dir = \""+h.stateDir+"\"\n"), 0o600); err != nil {
		h.t.Fatal(err)
	}
	p, err := providerexec.New(providerexec.Config{Name: "sim", Executable: buildSim(h.t), ConfigFile: cfg,
		InterfaceVersion: provider.InterfaceV011, ControllerID: h.ctrl.ID})
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// clock returns the harness time.
func (h *harness) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// resetClock puts the harness clock back to the wall clock the store stamps rows with.
func (h *harness) resetClock() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.now = time.Now().UTC()
}

// pass reconciles once and runs the steps it handed out, and the repair it started.
func (h *harness) pass(r *Reconciler, poolID string) {
	h.t.Helper()
	if _, err := r.reconcile(h.t.Context(), poolID); err != nil {
		h.t.Fatalf("reconcile: %v", err)
	}
	h.drain(r)
}

// drain runs the instance steps and the repairs waiting for a worker, one at a time,
// until none is left; it returns how many ran. Work due later (a retry's or a failed
// delete's backoff, the next repair) stays due later.
func (h *harness) drain(r *Reconciler) int {
	n := 0
	for {
		k := r.instances.ProcessReady(h.t.Context()) + r.repairs.ProcessReady(h.t.Context())
		if k == 0 {
			return n
		}
		n += k
	}
}

func (h *harness) advance(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.now = h.now.Add(d)
}

// injectTemplate stands in for bootstrap.InjectTemplate.
func injectTemplate(specs json.RawMessage, _ string, p TemplateParams) (json.RawMessage, error) {
	m := map[string]any{}
	if len(specs) > 0 {
		if err := json.Unmarshal(specs, &m); err != nil {
			return nil, err
		}
	}
	if _, ok := m["runner_install_template"]; !ok {
		m["runner_install_template"] = base64.StdEncoding.EncodeToString([]byte("#!/bin/bash\n# token " + p.InstanceToken))
	}
	return json.Marshal(m)
}

// reconciler returns a Reconciler over the harness with the given provider.
func (h *harness) reconciler(p Provider) *Reconciler {
	r, err := New(Options{
		Store: h.store, Providers: ProviderMap{"sim": {Provider: p}}, Forges: oneForge{h.forge}, Tokens: h.tokens,
		InjectTemplate: injectTemplate, Now: h.clock,
		Policy: Policy{RetryBackoff: time.Second, MaxRetryBackoff: time.Second, ScaleDownGrace: time.Minute},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	r.listingMargin = 0 // rows are written just before the repairs that judge them
	return r
}

// pool creates a pool of the harness entity.
func (h *harness) pool(minIdle, maxRunners uint, extraSpecs string) garrison.Pool {
	p := garrison.Pool{EntityID: h.entity.ID, ProviderName: "sim", RunnerPrefix: "garm", MaxRunners: maxRunners,
		MinIdleRunners: minIdle, Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		Tags: garrison.TagsFromNames([]string{"self-hosted", "linux", "x64"}), Enabled: true, Generation: 1}
	if extraSpecs != "" {
		p.ExtraSpecs = json.RawMessage(extraSpecs)
	}
	return must(h.store.CreatePool(h.t.Context(), p))(h.t)
}

// settle reconciles the pool and runs its steps until a pass starts none.
func (h *harness) settle(r *Reconciler, poolID string) {
	h.t.Helper()
	for range 30 {
		if _, err := r.reconcile(h.t.Context(), poolID); err != nil {
			h.t.Fatalf("reconcile: %v", err)
		}
		steps := h.drain(r)
		if _, err := r.reconcile(h.t.Context(), poolID); err != nil {
			h.t.Fatalf("reconcile: %v", err)
		}
		if steps += h.drain(r); steps == 0 {
			return
		}
	}
	h.t.Fatal("pool did not settle")
}

// instances returns the pool's instances.
func (h *harness) instances(poolID string) []garrison.Instance {
	return must(h.store.ListInstances(h.t.Context(), store.InstanceFilter{PoolID: poolID}))(h.t)
}

// providerNames returns the names of the pool's instances in the sim provider.
func (h *harness) providerNames(poolID string) map[string]bool {
	list := must(h.prov.ListInstances(h.t.Context(), provider.Target{PoolID: poolID}))(h.t)
	out := map[string]bool{}
	for _, pi := range list {
		out[pi.Name] = true
	}
	return out
}

// forgeNames returns the names of the repository's runners in the forge simulator.
func (h *harness) forgeNames() map[string]bool {
	out := map[string]bool{}
	for _, rn := range h.sim.Runners() {
		out[rn.Name] = true
	}
	return out
}

// setRunner sets an instance's runner status, as the instance callbacks would.
func (h *harness) setRunner(name string, rs garrison.RunnerStatus) {
	must(h.store.UpdateInstance(h.t.Context(), name, func(i *garrison.Instance) error {
		i.RunnerStatus = rs
		return nil
	}))(h.t)
}

// queueJob records a queued job in the ledger.
func (h *harness) queueJob(id int64) {
	must(h.store.UpsertJob(h.t.Context(), id, func(j *garrison.Job, _ bool) error {
		j.Action, j.Labels, j.EntityID, j.EntityType = garrison.JobQueued, []string{"self-hosted", "linux"}, h.entity.ID, h.entity.Type
		return nil
	}))(h.t)
}

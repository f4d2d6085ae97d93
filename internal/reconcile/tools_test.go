package reconcile

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// useGitea switches the harness to a Gitea organization acme whose endpoint takes its
// runner releases from the simulator; it returns the releases URL.
func (h *harness) useGitea() string {
	ctx := h.t.Context()
	url := h.sim.URL()
	tools := url + "/api/v1/repos/gitea/runner/releases"
	ep := must(h.store.CreateEndpoint(ctx, garrison.Endpoint{Name: "gitea", Type: garrison.Gitea, BaseURL: url,
		APIBaseURL: url + "/api/v1", ToolsMetadataURL: tools}))(h.t)
	cr := must(h.store.CreateCredentials(ctx, garrison.Credentials{Name: "gc", ForgeType: garrison.Gitea,
		AuthType: garrison.AuthPAT, Endpoint: ep.Name, PAT: "pat-1"}))(h.t)
	e := must(h.store.CreateEntity(ctx, garrison.Entity{Type: garrison.Organization, Name: "acme", CredentialsID: cr.ID,
		Balancer: garrison.RoundRobin}))(h.t)
	h.entity = must(h.store.Entity(ctx, e.ID))(h.t)
	c, err := gitea.New(ep, cr, gitea.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.forge = c // the Gitea client is a Forge as it is: no JIT, downloads from the tools URL
	return tools
}

// poolReports records what a Reconciler tells Options.PoolStatus.
type poolReports struct {
	mu   sync.Mutex // guards last
	last map[string]error
}

func (p *poolReports) record(pool garrison.Pool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last[pool.ID] = err
}

func (p *poolReports) get(id string) (error, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	err, ok := p.last[id]
	return err, ok
}

// TestNoUsableRunnerDownloadShown checks that a pool whose forge offers no runner
// download for its os/arch says so, naming where the downloads come from, in the failed
// instance's messages and on the pool, and recovers once a download appears.
func TestNoUsableRunnerDownloadShown(t *testing.T) {
	tooOld := []forgesim.GiteaRelease{{Tag: "v0.2.11", Assets: []string{"act_runner-0.2.11-linux-amd64"}}}
	tests := []struct {
		name   string
		gitea  bool
		arch   string
		source func(h *harness, tools string) string
		fix    func(h *harness, p garrison.Pool)
	}{
		{"gitea release too old", true, garrison.ArchAMD64,
			func(_ *harness, tools string) string { return tools },
			func(h *harness, _ garrison.Pool) { h.sim.SetGiteaReleases(forgesim.DefaultGiteaReleases()) }},
		{"github arch not offered", false, garrison.ArchARM,
			func(h *harness, _ string) string { return "the runner downloads of " + h.entity.FullName() },
			func(h *harness, p garrison.Pool) {
				must(h.store.UpdatePool(h.t.Context(), p.ID, func(p *garrison.Pool) error { p.OSArch = garrison.ArchAMD64; return nil }))(h.t)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			var tools string
			if tt.gitea {
				tools = h.useGitea()
				h.sim.SetGiteaReleases(tooOld)
			}
			reports := &poolReports{last: map[string]error{}}
			r, err := New(Options{
				Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge},
				Tokens: h.tokens, InjectTemplate: injectTemplate, Now: h.clock, PoolStatus: reports.record,
				Policy: Policy{RetryBackoff: time.Second, MaxRetryBackoff: time.Second},
			})
			if err != nil {
				t.Fatal(err)
			}
			p := h.pool(1, 1, "")
			must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.OSArch = tt.arch; return nil }))(t)
			h.pass(r, p.ID)

			want := "no usable runner download for linux/" + tt.arch + " in " + tt.source(h, tools) + " ("
			ins := h.instances(p.ID)
			if len(ins) != 1 || ins[0].Status != garrison.InstanceError {
				t.Fatalf("instances %+v, want one in error", ins)
			}
			in := must(h.store.Instance(t.Context(), ins[0].Name))(t)
			if last := in.StatusMessages[len(in.StatusMessages)-1].Message; !strings.Contains(last, want) {
				t.Errorf("instance message %q, want it to contain %q", last, want)
			}
			if err := r.triage(t.Context(), nil); err != nil { // a resync that finds nothing to do
				t.Fatal(err)
			}
			perr, _ := reports.get(p.ID)
			var nd *NoDownloadError
			if !errors.As(perr, &nd) || !strings.Contains(perr.Error(), want) {
				t.Errorf("pool status %v, want %q", perr, want)
			}

			tt.fix(h, p)
			h.advance(time.Minute) // past the retry backoff
			h.settle(r, p.ID)
			ins = h.instances(p.ID)
			if len(ins) != 1 || ins[0].Status != garrison.InstanceRunning {
				t.Fatalf("after the fix: instances %+v, want one running", ins)
			}
			if perr, ok := reports.get(p.ID); !ok || perr != nil {
				t.Errorf("after the fix: pool status %v (reported %v), want nil", perr, ok)
			}
		})
	}
}

package reconcile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

func TestMinIdleKept(t *testing.T) {
	h := newHarness(t)
	p := h.pool(2, 4, `{"flavor_override":"big"}`)
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	ins := h.instances(p.ID)
	if len(ins) != 2 {
		t.Fatalf("instances = %d, want 2", len(ins))
	}
	inProvider, inForge := h.providerNames(p.ID), h.forgeNames()
	for _, in := range ins {
		if in.Status != garrison.InstanceRunning || in.ProviderID != "sim-"+in.Name || in.AgentID == 0 {
			t.Errorf("instance %s: status %s provider id %q agent %d", in.Name, in.Status, in.ProviderID, in.AgentID)
		}
		if one := must(h.store.Instance(t.Context(), in.Name))(t); len(one.JITConfig) == 0 { // lists leave it nil
			t.Errorf("instance %s: no JIT config", in.Name)
		}
		if !strings.HasPrefix(in.Name, "garm-") || in.Generation != 1 || in.CreateAttempt != 1 {
			t.Errorf("instance %s: generation %d attempt %d", in.Name, in.Generation, in.CreateAttempt)
		}
		if !inProvider[in.Name] || !inForge[in.Name] {
			t.Errorf("instance %s: in provider %v, in forge %v", in.Name, inProvider[in.Name], inForge[in.Name])
		}
		h.checkBootstrap(in, p)
	}
}

// checkBootstrap checks the CreateInstance document the sim provider stored.
func (h *harness) checkBootstrap(in garrison.Instance, p garrison.Pool) {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.stateDir, "instances", in.ProviderID+".json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var rec simprovider.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		h.t.Fatal(err)
	}
	bi := rec.Bootstrap
	var specs map[string]any
	_ = json.Unmarshal(bi.ExtraSpecs, &specs)
	switch {
	case bi.Name != in.Name || bi.PoolID != p.ID || !bi.JitConfigEnabled || bi.Labels != nil:
		h.t.Errorf("bootstrap identity/JIT wrong: %+v", bi)
	case !strings.HasSuffix(bi.RepoURL, "/acme/app") || len(bi.Tools) == 0 || bi.InstanceToken == "":
		h.t.Errorf("bootstrap repo/tools/token wrong: %q %d", bi.RepoURL, len(bi.Tools))
	case bi.CallbackURL != h.ctrl.CallbackURL || bi.MetadataURL != h.ctrl.MetadataURL:
		h.t.Errorf("bootstrap URLs wrong: %q %q", bi.CallbackURL, bi.MetadataURL)
	case specs["flavor_override"] != "big" || specs["runner_install_template"] == nil:
		h.t.Errorf("extra specs = %s", bi.ExtraSpecs)
	case bi.OSType != "linux" || bi.OSArch != "amd64" || bi.Image != p.Image || bi.Flavor != p.Flavor:
		h.t.Errorf("bootstrap pool fields wrong: %+v", bi)
	}
	claims, err := h.tokens.VerifyInstance(bi.InstanceToken)
	if err != nil || claims.Name != in.Name || claims.PoolID != p.ID || claims.CreateAttempt != in.CreateAttempt || claims.Entity != "acme/app" {
		h.t.Errorf("instance token: %+v, %v", claims, err)
	}
}

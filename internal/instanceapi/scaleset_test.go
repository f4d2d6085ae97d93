package instanceapi

import (
	"encoding/json"
	"testing"

	"github.com/garrison-ci/garrison"
)

// TestScaleSetRunnerBootstrap: a scale set's runner (no pool) authenticates and reads
// its metadata and JIT files from its scale set's definition; a status callback does not
// notify any pool.
func TestScaleSetRunnerBootstrap(t *testing.T) {
	e := newEnv(t, envConfig{})
	ss, err := e.st.CreateScaleSet(t.Context(), garrison.ScaleSet{EntityID: e.entity.ID, Name: "set", ScaleSetID: 9,
		ProviderName: "sim", Image: "img", Flavor: "small", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		MaxRunners: 2, Enabled: true, ExtraSpecs: []byte(`{"from":"scaleset"}`), RunnerGroup: "Default"})
	must(t, err)
	_, tok := e.addInstance("ss-a", func(i *garrison.Instance) {
		i.PoolID, i.ScaleSetID, i.JITConfig = "", ss.ID, jitConfig()
	})
	var md map[string]any
	r := e.do("GET", MetadataPrefix+"/runner-metadata", tok, "")
	r.want(t, 200, "application/json", "*")
	must(t, json.Unmarshal([]byte(r.body), &md))
	if md["jit_enabled"] != true || md["runner_name"] != "ss-a" {
		t.Fatalf("metadata %v", md)
	}
	if specs, _ := md["extra_specs"].(map[string]any); specs["from"] != "scaleset" {
		t.Fatalf("extra specs %v, want the scale set's", md["extra_specs"])
	}
	e.do("GET", MetadataPrefix+"/credentials/runner", tok, "").want(t, 200, "application/octet-stream", "content of .runner")
	e.do("POST", CallbackPrefix+"/status", tok, `{"status":"installing","message":"installing"}`).want(t, 200, "application/json", "*")
	if got := e.instance("ss-a"); got.RunnerStatus != garrison.RunnerInstalling {
		t.Fatalf("runner status %s", got.RunnerStatus)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.notified) != 0 {
		t.Fatalf("a scale-set runner's callback notified pools %v", e.notified)
	}

	// A runner whose scale set is gone is refused.
	_, orphan := e.addInstance("ss-b", func(i *garrison.Instance) { i.PoolID, i.ScaleSetID = "", ss.ID })
	must(t, e.st.DeleteInstance(t.Context(), "ss-a"))
	must(t, e.st.DeleteInstance(t.Context(), "ss-b"))
	e.do("GET", MetadataPrefix+"/runner-metadata", orphan, "").wantAuthFailed(t)
}

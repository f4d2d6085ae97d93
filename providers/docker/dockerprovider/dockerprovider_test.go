package dockerprovider

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name, toml string
		wantErr    bool
		check      func(Config) bool
	}{
		{name: "defaults", check: func(c Config) bool { return c.Network == "bridge" && c.StopTimeoutSeconds == 10 }},
		{name: "host and flavor", toml: "host = \"unix:///run/d.sock\"\n[flavors.tiny]\ncpus = 0.5\nmemory_mib = 256\n",
			check: func(c Config) bool { return c.Host == "unix:///run/d.sock" && c.Flavors["tiny"].CPUs == 0.5 }},
		{name: "host network refused", toml: "network = \"host\"\n", wantErr: true},
		{name: "container network refused", toml: "network = \"container:x\"\n", wantErr: true},
		{name: "bad host", toml: "host = \"/run/d.sock\"\n", wantErr: true},
		{name: "negative flavor", toml: "[flavors.x]\ncpus = -1\n", wantErr: true},
		{name: "unknown key", toml: "privileged = true\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.toml")
			if err := os.WriteFile(path, []byte(tt.toml), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(path)
			if tt.wantErr {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("err = %v, want ErrConfig", err)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("config %+v, err %v", c, err)
			}
		})
	}
}

func TestResolveLimits(t *testing.T) {
	cfg := Config{Flavors: map[string]Limits{"small": {CPUs: 0.5, MemoryMiB: 512}, "gpu": {CPUs: 16}}}
	tests := []struct {
		flavor, specs string
		want          Limits
		wantErr       error
	}{
		{flavor: "", want: Limits{}},
		{flavor: "small", want: Limits{CPUs: 0.5, MemoryMiB: 512}},
		{flavor: "medium", want: Limits{CPUs: 2, MemoryMiB: 4096}},
		{flavor: "gpu", want: Limits{CPUs: 16}},
		{flavor: "large", specs: `{"memory_mib":1024}`, want: Limits{CPUs: 4, MemoryMiB: 1024}},
		{flavor: "", specs: `{"cpus":1.5}`, want: Limits{CPUs: 1.5}},
		{flavor: "huge", wantErr: ErrUnknownFlavor},
		{flavor: "huge", specs: `{"cpus":3,"memory_mib":300}`, want: Limits{CPUs: 3, MemoryMiB: 300}},
	}
	for _, tt := range tests {
		specs, err := ParseExtraSpecs(json.RawMessage(tt.specs))
		if err != nil {
			t.Fatal(err)
		}
		got, err := cfg.ResolveLimits(tt.flavor, specs)
		if !errors.Is(err, tt.wantErr) || (err == nil && got != tt.want) {
			t.Errorf("ResolveLimits(%q, %s) = %+v, %v; want %+v, %v", tt.flavor, tt.specs, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseExtraSpecsAndSchema(t *testing.T) {
	for _, in := range []string{`{"privileged":true}`, `{"cpus":-1}`, `{"extra_packages":["a b"]}`} {
		if _, err := ParseExtraSpecs(json.RawMessage(in)); !errors.Is(err, userdata.ErrInvalidSpec) {
			t.Errorf("ParseExtraSpecs(%s) = %v, want ErrInvalidSpec", in, err)
		}
	}
	var doc struct {
		Properties           map[string]any `json:"properties"`
		AdditionalProperties bool           `json:"additionalProperties"`
	}
	if err := json.Unmarshal(ExtraSpecsSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range doc.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := "cpus,disable_updates,enable_boot_debug,extra_context,extra_packages,memory_mib,pre_install_scripts,runner_install_template"
	if strings.Join(keys, ",") != want || doc.AdditionalProperties {
		t.Errorf("schema keys %v (additional %v)", keys, doc.AdditionalProperties)
	}
}

func bootstrap(name, pool string) provider.BootstrapInstance {
	return provider.BootstrapInstance{Name: name, PoolID: pool, OSType: "linux", OSArch: "amd64",
		Image: "runner:1", Flavor: "small", ExtraSpecs: json.RawMessage(`{}`)}
}

func TestCreateInstance(t *testing.T) {
	f := newFakeEngine()
	p := NewWithEngine(Config{Network: "bridge", StopTimeoutSeconds: 1}, f, "ctrl")
	inst, err := p.CreateInstance(t.Context(), bootstrap("r1", "pool-1"))
	if err != nil {
		t.Fatal(err)
	}
	want := provider.ProviderInstance{ProviderID: "r1", Name: "r1", OSType: "linux", Status: provider.StatusRunning,
		Addresses: []provider.Address{{Address: "10.216.0.7", Type: provider.PrivateAddress}}}
	if !reflect.DeepEqual(inst, want) {
		t.Errorf("instance %+v, want %+v", inst, want)
	}
	c := f.containers["r1"]
	if c.cfg.Labels[LabelControllerID] != "ctrl" || c.cfg.Labels[LabelPoolID] != "pool-1" || c.cfg.Hostname != "r1" {
		t.Errorf("config %+v", c.cfg)
	}
	if c.host.NetworkMode != "bridge" || c.host.NanoCPUs != 1e9 || c.host.Memory != 1<<30 || c.host.Init == nil || !*c.host.Init ||
		len(c.host.PortBindings) != 0 || c.host.Privileged {
		t.Errorf("host config %+v", c.host)
	}
	if c.copied["/"] == 0 {
		t.Error("entry script not copied before start")
	}
	if _, err := p.CreateInstance(t.Context(), bootstrap("r1", "pool-1")); !errors.Is(err, sdk.ErrDuplicate) {
		t.Errorf("duplicate: %v", err)
	}
}

func TestCreateErrors(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(*provider.BootstrapInstance)
		wantErr error
	}{
		{"missing image", func(b *provider.BootstrapInstance) { b.Image = "nope:1" }, ErrImageNotFound},
		{"no image", func(b *provider.BootstrapInstance) { b.Image = "" }, ErrImageNotFound},
		{"windows", func(b *provider.BootstrapInstance) { b.OSType = "windows" }, ErrUnsupportedOS},
		{"unknown flavor", func(b *provider.BootstrapInstance) { b.Flavor = "huge" }, ErrUnknownFlavor},
		{"unknown spec", func(b *provider.BootstrapInstance) { b.ExtraSpecs = json.RawMessage(`{"x":1}`) }, userdata.ErrInvalidSpec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine()
			p := NewWithEngine(Config{Network: "bridge"}, f, "ctrl")
			bi := bootstrap("r", "p")
			tt.mod(&bi)
			if _, err := p.CreateInstance(t.Context(), bi); !errors.Is(err, tt.wantErr) {
				t.Errorf("err %v, want %v", err, tt.wantErr)
			}
			if len(f.containers) != 0 {
				t.Error("container left after a failed create")
			}
		})
	}
	f := newFakeEngine()
	f.startErr = errors.New("start failed")
	if _, err := NewWithEngine(Config{}, f, "c").CreateInstance(t.Context(), bootstrap("r", "p")); err == nil || len(f.containers) != 0 {
		t.Errorf("failed start: err %v, containers %d", err, len(f.containers))
	}
}

func TestListRemoveAndOwnership(t *testing.T) {
	f := newFakeEngine()
	p := NewWithEngine(Config{Network: "bridge", StopTimeoutSeconds: 1}, f, "ctrl")
	for _, c := range []struct{ name, pool string }{{"a", "p1"}, {"b", "p1"}, {"c", "p2"}} {
		if _, err := p.CreateInstance(t.Context(), bootstrap(c.name, c.pool)); err != nil {
			t.Fatal(err)
		}
	}
	other := NewWithEngine(Config{Network: "bridge"}, f, "ctrl-2")
	if _, err := other.CreateInstance(t.Context(), bootstrap("z", "p1")); err != nil {
		t.Fatal(err)
	}
	list, err := p.ListInstances(t.Context(), "p1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range list {
		names = append(names, i.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("list p1 = %v", names)
	}
	if got := f.lastList.Filters.Get("label"); len(got) != 2 || !f.lastList.All {
		t.Errorf("list options %+v", f.lastList)
	}
	if err := p.DeleteInstance(t.Context(), "z"); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("delete other controller's container: %v", err)
	}
	if err := p.DeleteInstance(t.Context(), "missing"); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("delete missing: %v", err)
	}
	if err := p.RemoveAllInstances(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.containers["z"]; !ok || len(f.containers) != 1 {
		t.Errorf("after RemoveAllInstances: %d containers", len(f.containers))
	}
}

func TestStopStart(t *testing.T) {
	f := newFakeEngine()
	p := NewWithEngine(Config{Network: "bridge", StopTimeoutSeconds: 1}, f, "ctrl")
	if _, err := p.CreateInstance(t.Context(), bootstrap("r", "p")); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		do   func() error
		want provider.Status
	}{
		{func() error { return p.Stop(t.Context(), "r") }, provider.StatusStopped},
		{func() error { return p.Start(t.Context(), "r") }, provider.StatusRunning},
		{func() error { return p.Start(t.Context(), "r") }, provider.StatusRunning},
	} {
		if err := step.do(); err != nil {
			t.Fatal(err)
		}
		if got, _ := p.GetInstance(t.Context(), "r"); got.Status != step.want {
			t.Fatalf("status %q, want %q", got.Status, step.want)
		}
	}
}

func TestStateStatus(t *testing.T) {
	tests := map[string]provider.Status{
		container.StateRunning: provider.StatusRunning, container.StateExited: provider.StatusStopped,
		container.StateCreated: provider.StatusStopped, container.StateDead: provider.StatusError,
		container.StateRestarting: provider.StatusUnknown, "": provider.StatusUnknown,
	}
	for in, want := range tests {
		if got := stateStatus(in); got != want {
			t.Errorf("stateStatus(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFilterLabelled(t *testing.T) {
	list := []container.Summary{
		{ID: "a", Labels: map[string]string{LabelControllerID: "c", LabelPoolID: "p"}},
		{ID: "b", Labels: map[string]string{LabelControllerID: "c", LabelPoolID: "q"}},
		{ID: "c"},
	}
	tests := []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{LabelControllerID: "c"}, "a,b"},
		{map[string]string{LabelControllerID: "c", LabelPoolID: "q"}, "b"},
		{map[string]string{LabelControllerID: "x"}, ""},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range FilterLabelled(list, tt.labels) {
			got = append(got, s.ID)
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("FilterLabelled(%v) = %v, want %s", tt.labels, got, tt.want)
		}
	}
}

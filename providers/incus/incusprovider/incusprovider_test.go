package incusprovider

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lxc/incus/v6/shared/api"

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
		{name: "defaults", toml: "", check: func(c Config) bool {
			return c.UnixSocketPath == DefaultUnixSocket && c.InstanceType == TypeContainer
		}},
		{name: "https", toml: "url = \"https://incus.example:8443\"\nclient_certificate = \"/c\"\nclient_key = \"/k\"\n",
			check: func(c Config) bool { return c.UnixSocketPath == "" && c.URL != "" }},
		{name: "http refused", toml: "url = \"http://incus.example\"\n", wantErr: true},
		{name: "cert without key", toml: "url = \"https://h\"\nclient_certificate = \"/c\"\n", wantErr: true},
		{name: "vm", toml: "instance_type = \"virtual-machine\"\nsecure_boot = true\n",
			check: func(c Config) bool { return c.InstanceType == TypeVirtualMachine && c.SecureBoot }},
		{name: "bad type", toml: "instance_type = \"pod\"\n", wantErr: true},
		{name: "relative socket", toml: "unix_socket_path = \"incus.sock\"\n", wantErr: true},
		{name: "unknown key", toml: "colour = \"blue\"\n", wantErr: true},
		{name: "remote garm spelling", toml: "[image_remotes.images]\naddr = \"https://images.example\"\npublic = true\n",
			check: func(c Config) bool {
				r := c.ImageRemotes["images"]
				return r.Address == "https://images.example" && r.Protocol == "simplestreams" && r.Public
			}},
		{name: "remote bad protocol", toml: "[image_remotes.x]\naddress = \"https://h\"\nprotocol = \"ftp\"\n", wantErr: true},
		{name: "remote no address", toml: "[image_remotes.x]\nprotocol = \"incus\"\n", wantErr: true},
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
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Errorf("config %+v", c)
			}
		})
	}
}

func TestParseExtraSpecs(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`{}`, true}, {`null`, true}, {`{"cpus":2,"memory_mib":2048,"disable_updates":true,"extra_packages":["jq"]}`, true},
		{`{"flavor":"x"}`, false}, {`{"cpus":-1}`, false}, {`{"runner_install_template":"%%"}`, false}, {`"x"`, false},
	}
	for _, tt := range tests {
		_, err := ParseExtraSpecs(json.RawMessage(tt.in))
		if (err == nil) != tt.ok {
			t.Errorf("ParseExtraSpecs(%s) = %v, want ok=%v", tt.in, err, tt.ok)
		}
		if err != nil && !errors.Is(err, userdata.ErrInvalidSpec) {
			t.Errorf("ParseExtraSpecs(%s): %v is not ErrInvalidSpec", tt.in, err)
		}
	}
}

// TestSchemaMatchesSpecs keeps the schema's properties equal to the JSON
// keys ExtraSpecs decodes.
func TestSchemaMatchesSpecs(t *testing.T) {
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
	want := jsonKeys(reflect.TypeFor[ExtraSpecs]())
	sort.Strings(want)
	if strings.Join(keys, ",") != strings.Join(want, ",") || doc.AdditionalProperties {
		t.Errorf("schema properties %v (additional %v), want %v closed", keys, doc.AdditionalProperties, want)
	}
	if !json.Valid(ConfigSchema()) {
		t.Error("config schema is not JSON")
	}
}

// jsonKeys lists the JSON names of a struct, following embedded structs.
func jsonKeys(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if f.Anonymous {
			out = append(out, jsonKeys(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// newTestProvider returns a provider for controller "ctrl" on a fake.
func newTestProvider(cfg Config) (*Provider, *fakeServer) {
	f := newFake()
	if cfg.InstanceType == "" {
		cfg.InstanceType = TypeContainer
	}
	return NewWithServer(cfg, f, "ctrl"), f
}

func bootstrap(name, pool string) provider.BootstrapInstance {
	return provider.BootstrapInstance{Name: name, PoolID: pool, OSType: "linux", OSArch: "amd64",
		Image: "garrison-runner", ExtraSpecs: json.RawMessage(`{}`)}
}

func TestCreateRequest(t *testing.T) {
	p, f := newTestProvider(Config{IncludeDefaultProfile: true, Profiles: []string{"small"}})
	bi := bootstrap("r1", "pool-1")
	bi.ExtraSpecs = json.RawMessage(`{"cpus":2,"memory_mib":512}`)
	inst, err := p.CreateInstance(t.Context(), bi)
	if err != nil {
		t.Fatal(err)
	}
	want := provider.ProviderInstance{ProviderID: "r1", Name: "r1", Status: provider.StatusRunning, OSType: "linux", OSArch: "amd64",
		Addresses: []provider.Address{{Address: "10.213.0.5", Type: provider.PrivateAddress}}}
	if !reflect.DeepEqual(inst, want) {
		t.Errorf("instance %+v\nwant %+v", inst, want)
	}
	req := f.created[0]
	if req.Config[KeyControllerID] != "ctrl" || req.Config[KeyPoolID] != "pool-1" ||
		req.Config["limits.cpu"] != "2" || req.Config["limits.memory"] != "512MiB" ||
		!strings.HasPrefix(req.Config["cloud-init.user-data"], userdata.Header) {
		t.Errorf("config %v", req.Config)
	}
	if !req.Start || req.Source.Alias != "garrison-runner" || strings.Join(req.Profiles, ",") != "default,small" {
		t.Errorf("request %+v", req)
	}
	if _, err := p.CreateInstance(t.Context(), bi); !errors.Is(err, sdk.ErrDuplicate) {
		t.Errorf("second create: %v, want ErrDuplicate", err)
	}
}

func TestCreateCleansUpAfterFailure(t *testing.T) {
	p, f := newTestProvider(Config{})
	f.createErr = errors.New("start failed")
	if _, err := p.CreateInstance(t.Context(), bootstrap("r1", "p")); err == nil {
		t.Fatal("create succeeded")
	}
	if len(f.instances) != 0 {
		t.Errorf("half-created instance left: %v", f.instances)
	}
}

func TestProfilesFromFlavor(t *testing.T) {
	tests := []struct {
		name, flavor, specs string
		cfg                 Config
		want                string
		wantErr             error
	}{
		{name: "no flavor", want: ""},
		{name: "flavor profile", flavor: "small", want: "small"},
		{name: "default then flavor", flavor: "small", cfg: Config{IncludeDefaultProfile: true}, want: "default,small"},
		{name: "missing flavor", flavor: "huge", wantErr: ErrProfileNotFound},
		{name: "missing flavor with limits", flavor: "huge", specs: `{"cpus":4}`, want: ""},
		{name: "missing configured profile", cfg: Config{Profiles: []string{"gpu"}}, wantErr: ErrProfileNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newTestProvider(tt.cfg)
			specs, err := ParseExtraSpecs(json.RawMessage(tt.specs))
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.profiles(t.Context(), tt.flavor, specs)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if err == nil && strings.Join(got, ",") != tt.want {
				t.Errorf("profiles %v, want %q", got, tt.want)
			}
		})
	}
}

func TestImageSource(t *testing.T) {
	p, _ := newTestProvider(Config{ImageRemotes: map[string]ImageRemote{
		"images": {Address: "https://images.example", Protocol: "simplestreams"}}})
	tests := []struct {
		image   string
		want    api.InstanceSource
		wantErr error
	}{
		{image: "garrison-runner", want: api.InstanceSource{Type: "image", Alias: "garrison-runner"}},
		{image: "images:debian/12", want: api.InstanceSource{Type: "image", Mode: "pull",
			Server: "https://images.example", Protocol: "simplestreams", Alias: "debian/12"}},
		{image: "nope:debian/12", wantErr: ErrUnknownRemote},
		{image: "missing", wantErr: ErrImageNotFound},
		{image: "", wantErr: ErrImageNotFound},
	}
	for _, tt := range tests {
		got, err := p.imageSource(t.Context(), tt.image)
		if !errors.Is(err, tt.wantErr) || (err == nil && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("imageSource(%q) = %+v, %v; want %+v, %v", tt.image, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestListDeleteAndTags(t *testing.T) {
	p, f := newTestProvider(Config{})
	for _, c := range []struct{ name, pool string }{{"a", "p1"}, {"b", "p1"}, {"c", "p2"}} {
		if _, err := p.CreateInstance(t.Context(), bootstrap(c.name, c.pool)); err != nil {
			t.Fatal(err)
		}
	}
	// An instance of another controller, and one without tags.
	f.instances["other"] = &api.InstanceFull{Instance: api.Instance{Name: "other", StatusCode: api.Running,
		InstancePut: api.InstancePut{Config: map[string]string{KeyControllerID: "ctrl-2", KeyPoolID: "p1"}}}}
	f.instances["untagged"] = &api.InstanceFull{Instance: api.Instance{Name: "untagged", StatusCode: api.Stopped}}

	if got := names(t, p, "p1"); got != "a,b" {
		t.Errorf("list p1 = %s, want a,b", got)
	}
	if err := p.DeleteInstance(t.Context(), "other"); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("deleting another controller's instance: %v, want ErrNotFound", err)
	}
	if err := p.DeleteInstance(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteInstance(t.Context(), "a"); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	if err := p.RemoveAllInstances(t.Context()); err != nil {
		t.Fatal(err)
	}
	var left []string
	for n := range f.instances {
		left = append(left, n)
	}
	sort.Strings(left)
	if strings.Join(left, ",") != "other,untagged" {
		t.Errorf("after RemoveAllInstances: %v", left)
	}
}

func TestStartStop(t *testing.T) {
	p, _ := newTestProvider(Config{})
	if _, err := p.CreateInstance(t.Context(), bootstrap("r", "p")); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		do   func() error
		want provider.Status
	}{
		{func() error { return p.Stop(t.Context(), "r") }, provider.StatusStopped},
		{func() error { return p.Stop(t.Context(), "r") }, provider.StatusStopped},
		{func() error { return p.Start(t.Context(), "r") }, provider.StatusRunning},
		{func() error { return p.Start(t.Context(), "r") }, provider.StatusRunning},
	}
	for i, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got, err := p.GetInstance(t.Context(), "r")
		if err != nil || got.Status != s.want {
			t.Fatalf("step %d: status %q (%v), want %q", i, got.Status, err, s.want)
		}
	}
	if err := p.Start(t.Context(), "missing"); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("start missing: %v", err)
	}
}

func TestFilterTagged(t *testing.T) {
	list := []api.InstanceFull{
		{Instance: api.Instance{Name: "a", InstancePut: api.InstancePut{Config: map[string]string{KeyControllerID: "c", KeyPoolID: "p"}}}},
		{Instance: api.Instance{Name: "b", InstancePut: api.InstancePut{Config: map[string]string{KeyControllerID: "c", KeyPoolID: "q"}}}},
		{Instance: api.Instance{Name: "c", InstancePut: api.InstancePut{Config: map[string]string{KeyControllerID: "d", KeyPoolID: "p"}}}},
		{Instance: api.Instance{Name: "d"}},
	}
	tests := []struct {
		tags map[string]string
		want string
	}{
		{map[string]string{KeyControllerID: "c"}, "a,b"},
		{map[string]string{KeyControllerID: "c", KeyPoolID: "p"}, "a"},
		{map[string]string{KeyPoolID: "p"}, "a,c"},
		{map[string]string{KeyControllerID: "x"}, ""},
	}
	for _, tt := range tests {
		var got []string
		for _, i := range FilterTagged(list, tt.tags) {
			got = append(got, i.Name)
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("FilterTagged(%v) = %v, want %s", tt.tags, got, tt.want)
		}
	}
}

func TestAddresses(t *testing.T) {
	nets := map[string]api.InstanceStateNetwork{
		"eth0": {Addresses: []api.InstanceStateNetworkAddress{
			{Address: "10.213.0.9", Scope: "global"}, {Address: "fe80::1", Scope: "link"}, {Address: "203.0.113.7", Scope: "global"}}},
		"lo": {Type: "loopback", Addresses: []api.InstanceStateNetworkAddress{{Address: "127.0.0.1", Scope: "global"}}},
	}
	want := []provider.Address{{Address: "10.213.0.9", Type: provider.PrivateAddress}, {Address: "203.0.113.7", Type: provider.PublicAddress}}
	if got := addresses(nets); !reflect.DeepEqual(got, want) {
		t.Errorf("addresses = %v, want %v", got, want)
	}
}

func TestValidatePoolInfo(t *testing.T) {
	p, _ := newTestProvider(Config{})
	if err := p.ValidatePoolInfo(t.Context(), "garrison-runner", "small", json.RawMessage(`{"cpus":1}`)); err != nil {
		t.Errorf("valid pool: %v", err)
	}
	if err := p.ValidatePoolInfo(t.Context(), "", "", json.RawMessage(`{"bogus":1}`)); !errors.Is(err, userdata.ErrInvalidSpec) {
		t.Errorf("unknown key: %v", err)
	}
	if err := p.ValidatePoolInfo(t.Context(), "missing", "", nil); !errors.Is(err, ErrImageNotFound) {
		t.Errorf("missing image: %v", err)
	}
}

func names(t *testing.T, p *Provider, pool string) string {
	t.Helper()
	list, err := p.ListInstances(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, i := range list {
		out = append(out, i.Name)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

package providerexec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/provider"
)

// managerEnv is garrison's own (fake) environment in the env tests.
var managerEnv = []string{
	"PATH=/usr/bin", "HOME=/root", "USER=garrison", "OTHER=1",
	"GARM_EVIL=1", "GARMX=2", "GARM_COMMAND=override",
	"http_proxy=http://proxy:3128", "NO_PROXY=localhost", "HTTPS_PROXY=",
	"AWS_REGION=eu-west-1", "AWS_PROFILE=ci", "AWSX=no",
}

func TestEnvironmentPerCommandAndVersion(t *testing.T) {
	const poolID, instID = "pool-1", "i-123"
	specs := json.RawMessage(`{ "a" : [1, 2] }`)
	b64Specs := "eyJhIjpbMSwyXX0=" // base64(`{"a":[1,2]}`)
	type want struct{ pool, inst, specs bool }
	cases := map[provider.Command][2]want{ // [v0.1.0, v0.1.1]
		provider.CreateInstance:                {{pool: true}, {pool: true, specs: true}},
		provider.DeleteInstance:                {{inst: true}, {pool: true, inst: true, specs: true}},
		provider.GetInstance:                   {{inst: true}, {pool: true, inst: true, specs: true}},
		provider.ListInstances:                 {{pool: true}, {pool: true, specs: true}},
		provider.RemoveAllInstances:            {{}, {pool: true, specs: true}},
		provider.StartInstance:                 {{inst: true}, {pool: true, inst: true, specs: true}},
		provider.StopInstance:                  {{inst: true}, {pool: true, inst: true, specs: true}},
		provider.GetVersion:                    {{}, {}},
		provider.GetSupportedInterfaceVersions: {{}, {}},
		provider.ValidatePoolInfo:              {{}, {specs: true}},
		provider.GetConfigJSONSchema:           {{}, {}},
		provider.GetExtraSpecsJSONSchema:       {{}, {}},
	}
	for vi, version := range []string{"", provider.InterfaceV011} {
		t.Run("version="+version, func(t *testing.T) {
			t.Parallel()
			p, dir := fakeProvider(t, "env", func(c *Config) {
				c.InterfaceVersion = version
				c.EnvPrefixes = []string{"FAKEPROV_", "AWS_", "GARM"}
			}, managerEnv...)
			runAllCommands(t, p, provider.Target{PoolID: poolID, InstanceID: instID, ExtraSpecs: specs})
			wantVersion := map[int]string{0: "v0.1.0", 1: "v0.1.1"}[vi]
			for cmd, w := range cases {
				wv := w[vi]
				exp := []string{
					"GARM_COMMAND=" + string(cmd),
					"GARM_CONTROLLER_ID=11111111-2222-3333-4444-555555555555",
					"GARM_PROVIDER_CONFIG_FILE=" + filepath.Join(dir, "provider.toml"),
					"GARM_INTERFACE_VERSION=" + wantVersion,
					"FAKEPROV_MODE=env", "FAKEPROV_DIR=" + dir,
					"http_proxy=http://proxy:3128", "NO_PROXY=localhost", "HTTPS_PROXY=",
					"AWS_REGION=eu-west-1", "AWS_PROFILE=ci",
				}
				if wv.pool {
					exp = append(exp, "GARM_POOL_ID="+poolID)
				}
				if wv.inst {
					exp = append(exp, "GARM_INSTANCE_ID="+instID)
				}
				if wv.specs {
					exp = append(exp, "GARM_POOL_EXTRASPECS="+b64Specs)
				}
				slices.Sort(exp)
				got, err := os.ReadFile(filepath.Join(dir, "env-"+string(cmd)))
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				if string(got) != strings.Join(exp, "\n") {
					t.Errorf("%s environment:\n got: %q\nwant: %q", cmd, strings.Split(string(got), "\n"), exp)
				}
				stdin, _ := os.ReadFile(filepath.Join(dir, "stdin-"+string(cmd)))
				if cmd != provider.CreateInstance && len(stdin) != 0 {
					t.Errorf("%s got stdin %q, want empty", cmd, stdin)
				}
			}
		})
	}
}

// runAllCommands calls every command once and fails on any error.
func runAllCommands(t *testing.T, p *Provider, tg provider.Target) {
	t.Helper()
	ctx := t.Context()
	bi := provider.BootstrapInstance{Name: "garm-abc", PoolID: tg.PoolID, ExtraSpecs: json.RawMessage(`{"x":1}`)}
	inst, err := p.CreateInstance(ctx, bi, tg.ExtraSpecs)
	check(t, "create", err)
	if inst.ProviderID != "i-garm-abc" || inst.Name != "garm-abc" {
		t.Errorf("create returned %+v", inst)
	}
	check(t, "delete", p.DeleteInstance(ctx, tg))
	got, err := p.GetInstance(ctx, tg)
	check(t, "get", err)
	if got.ProviderID != tg.InstanceID {
		t.Errorf("get returned %+v", got)
	}
	list, err := p.ListInstances(ctx, tg)
	check(t, "list", err)
	if len(list) != 1 {
		t.Errorf("list returned %+v", list)
	}
	check(t, "remove all", p.RemoveAllInstances(ctx, tg))
	check(t, "start", p.StartInstance(ctx, tg))
	check(t, "stop", p.StopInstance(ctx, tg))
	info, err := p.Introspect(ctx)
	check(t, "introspect", err)
	if info.Version != "v9.8.7" || !slices.Equal(info.SupportedInterfaceVersions, []string{"v0.1.0", "v0.1.1"}) {
		t.Errorf("introspect returned %+v", info)
	}
	check(t, "validate", p.ValidatePoolInfo(ctx, tg, nil))
	schema, err := p.GetConfigJSONSchema(ctx)
	check(t, "config schema", err)
	if string(schema) != `{"type":"object"}` {
		t.Errorf("config schema %q", schema)
	}
	_, err = p.GetExtraSpecsJSONSchema(ctx)
	check(t, "extra specs schema", err)
}

func check(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func TestCreateInstanceStdin(t *testing.T) {
	t.Parallel()
	p, dir := fakeProvider(t, "env", nil)
	bi := provider.BootstrapInstance{Name: "garm-x", PoolID: "p", Labels: []string{"a"}}
	if _, err := p.CreateInstance(t.Context(), bi, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "stdin-CreateInstance"))
	want, _ := json.Marshal(bi)
	if string(got) != string(want) {
		t.Errorf("stdin = %s, want %s", got, want)
	}
}

func TestEncodeExtraSpecs(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"", provider.NullExtraSpecs, false},
		{"  ", provider.NullExtraSpecs, false},
		{"null", provider.NullExtraSpecs, false},
		{`{"a": 1}`, "eyJhIjoxfQ==", false},
		{`{`, "", true},
	}
	for _, tt := range tests {
		got, err := EncodeExtraSpecs(json.RawMessage(tt.in))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("EncodeExtraSpecs(%q) = %q, %v", tt.in, got, err)
		}
	}
}

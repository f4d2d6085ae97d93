package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/provider"
)

// memProvider is a minimal in-memory provider for the SDK tests.
type memProvider struct {
	env       Environment
	created   provider.BootstrapInstance
	getStatus provider.Status
}

func (m *memProvider) CreateInstance(_ context.Context, bi provider.BootstrapInstance) (provider.ProviderInstance, error) {
	m.created = bi
	return provider.ProviderInstance{ProviderID: "id-" + bi.Name, Name: bi.Name, Status: provider.StatusRunning}, nil
}

func (m *memProvider) DeleteInstance(_ context.Context, id string) error {
	if id == "missing" {
		return fmt.Errorf("instance %s: %w", id, ErrNotFound)
	}
	return nil
}

func (m *memProvider) GetInstance(_ context.Context, id string) (provider.ProviderInstance, error) {
	return provider.ProviderInstance{ProviderID: id, Name: "n", Status: m.getStatus}, nil
}

func (m *memProvider) ListInstances(context.Context, string) ([]provider.ProviderInstance, error) {
	return nil, nil
}

func (m *memProvider) RemoveAllInstances(context.Context) error { return nil }

func (m *memProvider) Start(_ context.Context, id string) error {
	return fmt.Errorf("start %s: %w", id, ErrDuplicate)
}

func (m *memProvider) Stop(context.Context, string) error { panic("boom") }

// versioned adds GetVersion and ValidatePoolInfo.
type versioned struct{ memProvider }

func (versioned) Version(context.Context) string { return "v1.0.0" }

func (versioned) ValidatePoolInfo(_ context.Context, image, _ string, specs json.RawMessage) error {
	if image != "ubuntu" || string(specs) != `{"a":1}` {
		return fmt.Errorf("invalid pool: image %q specs %s", image, specs)
	}
	return nil
}

func TestRun(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cfg.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{
		provider.EnvControllerID: "ctrl", provider.EnvProviderConfig: cfg,
		provider.EnvInterfaceVersion: "v0.1.1", provider.EnvPoolID: "pool", provider.EnvInstanceID: "i-1",
		provider.EnvPoolExtraSpecs: "eyJhIjoxfQ==",
	}
	tests := []struct {
		name      string
		env       map[string]string // overrides; "" deletes
		stdin     string
		versioned bool
		status    provider.Status
		wantCode  int
		wantOut   string
		wantErr   string
	}{
		{name: "create", env: map[string]string{"GARM_COMMAND": "CreateInstance"}, stdin: `{"name":"n1"}`,
			wantOut: `{"provider_id":"id-n1","name":"n1","status":"running"}`},
		{name: "create no stdin", env: map[string]string{"GARM_COMMAND": "CreateInstance"}, wantCode: 1, wantErr: "no bootstrap"},
		{name: "create no name", env: map[string]string{"GARM_COMMAND": "CreateInstance"}, stdin: `{}`, wantCode: 1, wantErr: "no name"},
		{name: "create bad json", env: map[string]string{"GARM_COMMAND": "CreateInstance"}, stdin: `{`, wantCode: 1, wantErr: "decoding"},
		{name: "create no pool", env: map[string]string{"GARM_COMMAND": "CreateInstance", "GARM_POOL_ID": ""}, stdin: `{"name":"n"}`, wantCode: 1, wantErr: "GARM_POOL_ID"},
		{name: "get", env: map[string]string{"GARM_COMMAND": "GetInstance"}, status: provider.StatusStopped,
			wantOut: `{"provider_id":"i-1","name":"n","status":"stopped"}`},
		{name: "get invalid status", env: map[string]string{"GARM_COMMAND": "GetInstance"}, status: "creating", wantCode: 1, wantErr: "invalid instance"},
		{name: "get v0.1.1 needs pool", env: map[string]string{"GARM_COMMAND": "GetInstance", "GARM_POOL_ID": ""}, wantCode: 1, wantErr: "GARM_POOL_ID"},
		{name: "get v0.1.0 without pool", env: map[string]string{"GARM_COMMAND": "GetInstance", "GARM_POOL_ID": "", "GARM_INTERFACE_VERSION": ""},
			status: provider.StatusRunning, wantOut: `{"provider_id":"i-1","name":"n","status":"running"}`},
		{name: "get no instance", env: map[string]string{"GARM_COMMAND": "GetInstance", "GARM_INSTANCE_ID": ""}, wantCode: 1, wantErr: "GARM_INSTANCE_ID"},
		{name: "list empty", env: map[string]string{"GARM_COMMAND": "ListInstances"}, wantOut: `[]`},
		{name: "delete", env: map[string]string{"GARM_COMMAND": "DeleteInstance"}},
		{name: "delete missing", env: map[string]string{"GARM_COMMAND": "DeleteInstance", "GARM_INSTANCE_ID": "missing"}, wantCode: 30, wantErr: "not found"},
		{name: "start duplicate", env: map[string]string{"GARM_COMMAND": "StartInstance"}, wantCode: 31},
		{name: "stop panics", env: map[string]string{"GARM_COMMAND": "StopInstance"}, wantCode: 1, wantErr: "panic: boom"},
		{name: "remove all", env: map[string]string{"GARM_COMMAND": "RemoveAllInstances"}},
		{name: "no command", env: map[string]string{}, wantCode: 1, wantErr: "missing GARM_COMMAND"},
		{name: "unknown command", env: map[string]string{"GARM_COMMAND": "Reboot"}, wantCode: 1, wantErr: "unknown"},
		{name: "bad version", env: map[string]string{"GARM_COMMAND": "ListInstances", "GARM_INTERFACE_VERSION": "v9"}, wantCode: 1, wantErr: "interface version"},
		{name: "no config", env: map[string]string{"GARM_COMMAND": "ListInstances", "GARM_PROVIDER_CONFIG_FILE": ""}, wantCode: 1, wantErr: "GARM_PROVIDER_CONFIG_FILE"},
		{name: "config missing", env: map[string]string{"GARM_COMMAND": "ListInstances", "GARM_PROVIDER_CONFIG_FILE": "/nonexistent"}, wantCode: 1, wantErr: "config file"},
		{name: "no controller", env: map[string]string{"GARM_COMMAND": "ListInstances", "GARM_CONTROLLER_ID": ""}, wantCode: 1, wantErr: "GARM_CONTROLLER_ID"},
		{name: "bad extra specs", env: map[string]string{"GARM_COMMAND": "ListInstances", "GARM_POOL_EXTRASPECS": "!!"}, wantCode: 1, wantErr: "GARM_POOL_EXTRASPECS"},
		{name: "versions", env: map[string]string{"GARM_COMMAND": "GetSupportedInterfaceVersions"}, wantOut: `["v0.1.0","v0.1.1"]`},
		{name: "versions on v0.1.0", env: map[string]string{"GARM_COMMAND": "GetSupportedInterfaceVersions", "GARM_INTERFACE_VERSION": "v0.1.0"}, wantCode: 1, wantErr: "requires interface version"},
		{name: "version unsupported", env: map[string]string{"GARM_COMMAND": "GetVersion"}, wantCode: 1, wantErr: "not supported"},
		{name: "version", env: map[string]string{"GARM_COMMAND": "GetVersion"}, versioned: true, wantOut: "v1.0.0"},
		{name: "validate pool", env: map[string]string{"GARM_COMMAND": "ValidatePoolInfo"}, versioned: true, stdin: `{"image":"ubuntu"}`},
		{name: "validate pool fails", env: map[string]string{"GARM_COMMAND": "ValidatePoolInfo"}, versioned: true, wantCode: 1, wantErr: "invalid pool"},
		{name: "schema unsupported", env: map[string]string{"GARM_COMMAND": "GetConfigJSONSchema"}, wantCode: 1, wantErr: "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := make(map[string]string)
			for k, v := range base {
				env[k] = v
			}
			for k, v := range tt.env {
				env[k] = v
			}
			var stdout, stderr bytes.Buffer
			factory := func(_ context.Context, e Environment) (Provider, error) {
				m := memProvider{env: e, getStatus: tt.status}
				if tt.versioned {
					return &versioned{m}, nil
				}
				return &m, nil
			}
			code := Run(t.Context(), func(k string) string { return env[k] }, strings.NewReader(tt.stdin), &stdout, &stderr, factory)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if stdout.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.wantOut)
			}
			if tt.wantErr != "" && !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.wantErr)
			}
		})
	}
}

func TestCreateFillsExtraSpecs(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cfg")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GARM_COMMAND": "CreateInstance", "GARM_CONTROLLER_ID": "c",
		"GARM_PROVIDER_CONFIG_FILE": cfg, "GARM_POOL_ID": "p"}
	var m memProvider
	factory := func(context.Context, Environment) (Provider, error) { return &m, nil }
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), func(k string) string { return env[k] }, strings.NewReader(`{"name":"x","extra_specs":null}`), &out, &errOut, factory); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if string(m.created.ExtraSpecs) != "{}" {
		t.Errorf("extra specs = %s", m.created.ExtraSpecs)
	}
}

package simprovider

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
)

// specsWith returns extra specs holding tmpl as runner_install_template.
func specsWith(tmpl string, extra map[string]any) json.RawMessage {
	m := map[string]any{"runner_install_template": base64.StdEncoding.EncodeToString([]byte(tmpl))}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// linuxTools is a download list with one Linux x64 runner.
var linuxTools = []provider.RunnerApplicationDownload{
	{OS: "osx", Architecture: "x64", DownloadURL: "http://dl/osx.tgz", Filename: "osx.tgz"},
	{OS: "linux", Architecture: "x64", DownloadURL: "http://dl/linux.tgz", Filename: "linux.tgz", TempDownloadToken: "dt"},
}

func TestRenderInstall(t *testing.T) {
	const tmpl = `{{.RunnerName}}|{{.DownloadURL}}|{{.FileName}}|{{.TempDownloadToken}}|{{.CallbackToken}}|` +
		`{{.RunnerLabels}}|{{.UseJITConfig}}|{{.EnableBootDebug}}|{{index .ExtraContext "k"}}|{{.RunnerUsername}}|{{.HTTPProxy}}`
	base := provider.BootstrapInstance{Name: "n1", OSType: "linux", OSArch: "amd64", Tools: linuxTools, InstanceToken: "jwt",
		Labels: []string{"a", "b"}, ProxyConfig: provider.ProxyConfig{HTTPProxy: "http://proxy"},
		ExtraSpecs: specsWith(tmpl, map[string]any{"extra_context": map[string]string{"k": "v"}, "enable_boot_debug": true})}
	tests := []struct {
		name    string
		mod     func(*provider.BootstrapInstance)
		want    string
		wantErr error
	}{
		{"context", nil, "n1|http://dl/linux.tgz|linux.tgz|dt|jwt|a,b|false|true|v|runner|http://proxy", nil},
		{"no template", func(b *provider.BootstrapInstance) { b.ExtraSpecs = json.RawMessage(`{"boot_delay":"1s"}`) }, "", ErrNoInstallTemplate},
		{"no specs", func(b *provider.BootstrapInstance) { b.ExtraSpecs = nil }, "", ErrNoInstallTemplate},
		{"windows", func(b *provider.BootstrapInstance) { b.OSType = "windows" }, "", ErrUnsupportedOS},
		{"no tool", func(b *provider.BootstrapInstance) { b.OSArch = "arm64" }, "", ErrNoTool},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := base
			if tt.mod != nil {
				tt.mod(&bi)
			}
			got, err := renderInstall(bi)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && string(got) != tt.want) {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestBootConfig(t *testing.T) {
	tests := []struct {
		name string
		boot Boot
		ok   bool
	}{
		{"default", Boot{}, true},
		{"script", Boot{Mode: BootScript, RunnerCache: "/srv/r", Env: map[string]string{"A": "b"}}, true},
		{"bad mode", Boot{Mode: "vm"}, false},
		{"relative cache", Boot{Mode: BootScript, RunnerCache: "r"}, false},
		{"bad env name", Boot{Mode: BootScript, Env: map[string]string{"A=B": "c"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewWithConfig(Config{StateDir: t.TempDir(), Boot: tt.boot}, sdk.Environment{ControllerID: "c"})
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidConfig)) {
				t.Fatalf("err %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// bootScript records its environment and pid, starts a child in its group and waits.
const bootScript = `#!/bin/bash
env >"$HOME/env"
sleep 300 &
echo "$$ $!" >"$HOME/pids"
echo {{.RunnerName}} booted
wait
`

func TestScriptBootLifecycle(t *testing.T) {
	ctx := t.Context()
	p := newTestProvider(t, Behaviour{}, "c1")
	p.cfg.Boot = Boot{Mode: BootScript, Path: DefaultBootPath, Env: map[string]string{"EXTRA": "1", "PATH": "/nope"}}
	bi := provider.BootstrapInstance{Name: "b1", PoolID: "p", OSType: "linux", OSArch: "amd64", Tools: linuxTools,
		ExtraSpecs: specsWith(bootScript, nil)}
	inst, err := p.CreateInstance(ctx, bi)
	if err != nil || inst.Status != provider.StatusRunning {
		t.Fatalf("create: %+v, %v", inst, err)
	}
	dir := p.store.bootDir("sim-b1")
	pids := waitContent(t, filepath.Join(dir, "home", "pids"))
	env := waitContent(t, filepath.Join(dir, "home", "env"))
	for _, want := range []string{"EXTRA=1", "PATH=" + DefaultBootPath, "GARRISON_NO_SYSTEMD=1", "GARRISON_RETRY_DELAY=1",
		"GARRISON_RUNNER_HOME=" + filepath.Join(dir, "runner"), "TMPDIR=" + filepath.Join(dir, "tmp"), "GARRISON_SIM_INSTANCE=sim-b1"} {
		if !strings.Contains(env, want+"\n") {
			t.Errorf("boot environment lacks %s:\n%s", want, env)
		}
	}
	r, err := p.store.find("c1", "b1")
	if err != nil || r.Boot == nil || !groupAlive(r.Boot.PGID, "sim-b1") {
		t.Fatalf("record %+v, %v", r, err)
	}
	if first := strings.Fields(pids)[0]; first != strconv.Itoa(r.Boot.PGID) {
		t.Fatalf("recorded group %d, script pid %s", r.Boot.PGID, first)
	}
	if !groupAlive(r.Boot.PGID, "sim-b1") || groupAlive(r.Boot.PGID, "sim-other") {
		t.Fatal("marker check")
	}
	if err := p.DeleteInstance(ctx, "b1"); err != nil {
		t.Fatal(err)
	}
	for _, pid := range strings.Fields(pids) {
		n, _ := strconv.Atoi(pid)
		if _, live := procGroup(n); live {
			t.Errorf("process %d survived DeleteInstance", n)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("instance directory left: %v", err)
	}
	if err := p.DeleteInstance(ctx, "b1"); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestScriptBootFailuresLeaveNothing(t *testing.T) {
	ctx := t.Context()
	p := newTestProvider(t, Behaviour{}, "c1")
	p.cfg.Boot = Boot{Mode: BootScript, Path: DefaultBootPath}
	tests := []struct {
		name  string
		specs json.RawMessage
		want  error
	}{
		{"simulated failure", specsWith(bootScript, map[string]any{"failure_rate": 1}), ErrSimulatedFailure},
		{"no template", json.RawMessage(`{}`), ErrNoInstallTemplate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := provider.BootstrapInstance{Name: "f1", PoolID: "p", OSType: "linux", Tools: linuxTools, ExtraSpecs: tt.specs}
			if _, err := p.CreateInstance(ctx, bi); !errors.Is(err, tt.want) {
				t.Fatalf("create: %v", err)
			}
			if _, err := os.Stat(p.store.bootDir("sim-f1")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("instance directory exists: %v", err)
			}
		})
	}
}

func TestRemoveAllStopsBoots(t *testing.T) {
	ctx := t.Context()
	p := newTestProvider(t, Behaviour{}, "c1")
	p.cfg.Boot = Boot{Mode: BootScript, Path: DefaultBootPath}
	var groups []int
	for _, name := range []string{"r1", "r2"} {
		bi := provider.BootstrapInstance{Name: name, PoolID: "p", Tools: linuxTools, ExtraSpecs: specsWith(bootScript, nil)}
		if _, err := p.CreateInstance(ctx, bi); err != nil {
			t.Fatal(err)
		}
		waitContent(t, filepath.Join(p.store.bootDir("sim-"+name), "home", "pids"))
		r, _ := p.store.find("c1", name)
		groups = append(groups, r.Boot.PGID)
	}
	if err := p.RemoveAllInstances(ctx); err != nil {
		t.Fatal(err)
	}
	for i, g := range groups {
		if groupAlive(g, "sim-r"+strconv.Itoa(i+1)) {
			t.Fatalf("group %d survived", g)
		}
	}
}

// waitContent waits until path has content ending in a newline and returns it.
func waitContent(t *testing.T, path string) string {
	t.Helper()
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return string(b)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%s never written", path)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

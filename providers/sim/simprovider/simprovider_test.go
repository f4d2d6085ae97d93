package simprovider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
)

func newTestProvider(t testing.TB, b Behaviour, controller string) *Provider {
	t.Helper()
	p, err := NewWithConfig(Config{StateDir: t.TempDir(), Behaviour: b}, sdk.Environment{ControllerID: controller})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		ok            bool
	}{
		{"full", "state_dir = \"/tmp/x\"\nboot_delay = \"1s\"\nfailure_rate = 0.5\nhang = true\n", true},
		{"minimal", "state_dir = \"/tmp/x\"\n", true},
		{"relative dir", "state_dir = \"x\"\n", false},
		{"no dir", "boot_delay = \"1s\"\n", false},
		{"bad delay", "state_dir = \"/tmp/x\"\nboot_delay = \"soon\"\n", false},
		{"bad rate", "state_dir = \"/tmp/x\"\nfailure_rate = 2.0\n", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strconv.Itoa(i)+".toml")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadConfig(path)
			if (err == nil) != tt.ok {
				t.Fatalf("LoadConfig error = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestExtraSpecsOverride(t *testing.T) {
	ctx := t.Context()
	p := newTestProvider(t, Behaviour{}, "c1")
	bi := provider.BootstrapInstance{Name: "fails", PoolID: "p", ExtraSpecs: json.RawMessage(`{"failure_rate":1}`)}
	if _, err := p.CreateInstance(ctx, bi); !errors.Is(err, ErrSimulatedFailure) {
		t.Fatalf("create with failure_rate 1: %v", err)
	}
	hctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	bi = provider.BootstrapInstance{Name: "hangs", PoolID: "p", ExtraSpecs: json.RawMessage(`{"hang":true}`)}
	if _, err := p.CreateInstance(hctx, bi); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("create with hang: %v", err)
	}
	if err := p.ValidatePoolInfo(ctx, "", "", json.RawMessage(`{"boot_delay":"later"}`)); err == nil {
		t.Fatal("invalid boot_delay accepted")
	}
	if list, _ := p.ListInstances(ctx, "p"); len(list) != 0 {
		t.Fatalf("failed creates left records: %v", list)
	}
}

func TestLifecycleAndScoping(t *testing.T) {
	ctx := t.Context()
	p := newTestProvider(t, Behaviour{}, "c1")
	other, err := NewWithConfig(p.cfg, sdk.Environment{ControllerID: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := p.CreateInstance(ctx, provider.BootstrapInstance{Name: "n1", PoolID: "p1", OSType: "linux"})
	if err != nil || inst.ProviderID != "sim-n1" || inst.Status != provider.StatusRunning {
		t.Fatalf("create: %+v, %v", inst, err)
	}
	if _, err := p.CreateInstance(ctx, provider.BootstrapInstance{Name: "n1", PoolID: "p1"}); sdk.ExitCode(err) != provider.ExitDuplicate {
		t.Fatalf("duplicate create: %v", err)
	}
	if _, err := other.GetInstance(ctx, "sim-n1"); sdk.ExitCode(err) != provider.ExitNotFound {
		t.Fatalf("other controller sees the instance: %v", err)
	}
	if err := p.Stop(ctx, "n1"); err != nil { // by name
		t.Fatal(err)
	}
	if got, _ := p.GetInstance(ctx, "sim-n1"); got.Status != provider.StatusStopped {
		t.Fatalf("after stop: %+v", got)
	}
	if err := other.RemoveAllInstances(ctx); err != nil {
		t.Fatal(err)
	}
	if list, _ := p.ListInstances(ctx, "p1"); len(list) != 1 {
		t.Fatalf("another controller's RemoveAll removed our instance: %v", list)
	}
	if err := p.DeleteInstance(ctx, "sim-n1"); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteInstance(ctx, "sim-n1"); sdk.ExitCode(err) != provider.ExitNotFound {
		t.Fatalf("second delete: %v", err)
	}
	if err := p.DeleteInstance(ctx, "../../etc/passwd"); sdk.ExitCode(err) != provider.ExitNotFound {
		t.Fatalf("path-like id: %v", err)
	}
}

func TestConcurrentCreates(t *testing.T) {
	ctx := t.Context()
	p := newTestProvider(t, Behaviour{}, "c1")
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			name := "n" + strconv.Itoa(i%(n/2)) // every name twice
			_, err := p.CreateInstance(ctx, provider.BootstrapInstance{Name: name, PoolID: "p"})
			if err != nil && !errors.Is(err, sdk.ErrDuplicate) {
				t.Errorf("create %s: %v", name, err)
			}
		})
	}
	wg.Wait()
	list, err := p.ListInstances(ctx, "p")
	if err != nil || len(list) != n/2 {
		t.Fatalf("list: %d instances, %v", len(list), err)
	}
}

func TestBootstrapStored(t *testing.T) {
	p := newTestProvider(t, Behaviour{}, "c1")
	bi := provider.BootstrapInstance{Name: "n", PoolID: "p", InstanceToken: "jwt", MetadataURL: "http://m"}
	if _, err := p.CreateInstance(t.Context(), bi); err != nil {
		t.Fatal(err)
	}
	r, err := p.store.find("c1", "n")
	if err != nil || r.Bootstrap.InstanceToken != "jwt" || r.Bootstrap.MetadataURL != "http://m" {
		t.Fatalf("record %+v, %v", r, err)
	}
}

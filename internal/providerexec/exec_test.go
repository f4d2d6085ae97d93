package providerexec

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/provider"
)

// exitProvider returns a provider that prints stdout/stderr and exits code.
func exitProvider(t *testing.T, stdout, stderr string, code int) *Provider {
	t.Helper()
	p, _ := fakeProvider(t, "exit", nil,
		"FAKEPROV_STDOUT_B64="+base64.StdEncoding.EncodeToString([]byte(stdout)),
		"FAKEPROV_STDERR="+stderr,
		"FAKEPROV_EXIT="+itoa(code))
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tg := provider.Target{PoolID: "pool", InstanceID: "i-1"}
	tests := []struct {
		name     string
		code     int
		call     func(*Provider) error
		wantKind error // nil = success
	}{
		{"delete not found is success", 30, func(p *Provider) error { return p.DeleteInstance(t.Context(), tg) }, nil},
		{"get not found", 30, func(p *Provider) error { _, err := p.GetInstance(t.Context(), tg); return err }, ErrNotFound},
		{"start not found", 30, func(p *Provider) error { return p.StartInstance(t.Context(), tg) }, ErrNotFound},
		{"create duplicate", 31, func(p *Provider) error {
			_, err := p.CreateInstance(t.Context(), provider.BootstrapInstance{Name: "dup", PoolID: "pool"}, nil)
			return err
		}, ErrDuplicate},
		{"delete failure", 1, func(p *Provider) error { return p.DeleteInstance(t.Context(), tg) }, ErrFailed},
		{"stop exit 2", 2, func(p *Provider) error { return p.StopInstance(t.Context(), tg) }, ErrFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := exitProvider(t, "partial output", "cloud said no", tt.code)
			err := tt.call(p)
			if tt.wantKind == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("error %v is not %v", err, tt.wantKind)
			}
			var ce *CallError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *CallError", err)
			}
			if ce.Provider != "fake" || ce.ExitCode != tt.code || ce.Stderr != "cloud said no" || ce.Stdout != "partial output" {
				t.Errorf("CallError = %+v", ce)
			}
			if !strings.Contains(err.Error(), "cloud said no") || !strings.Contains(err.Error(), `provider "fake"`) {
				t.Errorf("message %q lacks provider or stderr", err)
			}
		})
	}
}

func TestMalformedOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, out string
		list      bool
	}{
		{"empty", "", false},
		{"empty list", "", true},
		{"not json", "hello world", false},
		{"wrong type", `{"provider_id":1,"name":"n","status":"running"}`, false},
		{"missing provider_id", `{"name":"n","status":"running"}`, false},
		{"missing name", `{"provider_id":"i","status":"running"}`, false},
		{"bad status", `{"provider_id":"i","name":"n","status":"pending_create"}`, false},
		{"plain provider_fault", `{"provider_id":"i","name":"n","status":"error","provider_fault":"boom!"}`, false},
		{"trailing junk", `{"provider_id":"i","name":"n","status":"running"}junk`, false},
		{"two documents", `{"provider_id":"i","name":"n","status":"running"} {}`, false},
		{"invalid utf8", "{\"provider_id\":\"i\xff\",\"name\":\"n\",\"status\":\"running\"}", false},
		{"list is object", `{"provider_id":"i","name":"n","status":"running"}`, true},
		{"list bad element", `[{"provider_id":"i","name":"n","status":"running"},{}]`, true},
		{"list trailing", `[] x`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := exitProvider(t, tt.out, "", 0)
			var err error
			if tt.list {
				_, err = p.ListInstances(t.Context(), provider.Target{PoolID: "pool"})
			} else {
				_, err = p.GetInstance(t.Context(), provider.Target{PoolID: "pool", InstanceID: "i"})
			}
			if !errors.Is(err, ErrBadOutput) || !errors.Is(err, provider.ErrInvalidOutput) {
				t.Fatalf("error %v is not ErrBadOutput", err)
			}
		})
	}
}

func TestListNullIsEmpty(t *testing.T) {
	t.Parallel()
	p := exitProvider(t, "null\n", "", 0)
	list, err := p.ListInstances(t.Context(), provider.Target{PoolID: "pool"})
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("got %v, %v", list, err)
	}
}

func TestHangKillsProcessGroup(t *testing.T) {
	t.Parallel()
	p, dir := fakeProvider(t, "hang", func(c *Config) { c.ExecTimeout = time.Second })
	var obs recordingObserver
	p.cfg.Observer = &obs
	_, err := p.GetInstance(t.Context(), provider.Target{InstanceID: "i-hang"})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("error %v is not ErrTimeout", err)
	}
	var ce *CallError
	if !errors.As(err, &ce) || ce.Instance != "i-hang" || ce.Command != provider.GetInstance {
		t.Fatalf("CallError = %+v", ce)
	}
	waitGone(t, readPID(t, filepath.Join(dir, "pid")))
	waitGone(t, readPID(t, filepath.Join(dir, "childpid")))
	if calls, last := obs.snapshot(); calls != 1 || !errors.Is(last, ErrTimeout) {
		t.Errorf("observer saw %d calls, last error %v", calls, last)
	}
}

// TestCommandTimeoutKillsHungCommand: a command's own limit (tighter than the exec
// timeout) kills a provider that never answers, with its process group.
func TestCommandTimeoutKillsHungCommand(t *testing.T) {
	t.Parallel()
	p, dir := fakeProvider(t, "hang", func(c *Config) {
		c.ExecTimeout = time.Hour
		c.CommandTimeouts = map[provider.Command]time.Duration{provider.DeleteInstance: time.Second}
	})
	err := p.DeleteInstance(t.Context(), provider.Target{InstanceID: "i-hang"})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("error %v is not ErrTimeout", err)
	}
	waitGone(t, readPID(t, filepath.Join(dir, "pid")))
	waitGone(t, readPID(t, filepath.Join(dir, "childpid")))
}

func TestCommandTimeoutsValidated(t *testing.T) {
	t.Parallel()
	for name, m := range map[string]map[provider.Command]time.Duration{
		"unknown command": {"Reboot": time.Second},
		"zero":            {provider.ListInstances: 0},
		"negative":        {provider.CreateInstance: -time.Second},
	} {
		c := Config{Name: "x", Executable: "/bin/true", CommandTimeouts: m}
		if _, err := New(c); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
	c := Config{ExecTimeout: time.Minute, CommandTimeouts: map[provider.Command]time.Duration{provider.ListInstances: time.Second, provider.DeleteInstance: time.Hour}}
	for cmd, want := range map[provider.Command]time.Duration{provider.ListInstances: time.Second, provider.DeleteInstance: time.Minute, provider.GetInstance: time.Minute} {
		if got := c.timeoutFor(cmd); got != want {
			t.Errorf("timeoutFor(%s) = %v, want %v", cmd, got, want)
		}
	}
	c.ExecTimeout = -1
	if got := c.timeoutFor(provider.GetInstance); got != 0 {
		t.Errorf("no limits: timeoutFor = %v", got)
	}
}

func TestCallerDeadlineBoundsCreate(t *testing.T) {
	t.Parallel()
	p, dir := fakeProvider(t, "hang", nil) // exec timeout: one minute
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := p.CreateInstance(ctx, provider.BootstrapInstance{Name: "slow", PoolID: "p"}, nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("error %v is not ErrTimeout", err)
	}
	waitGone(t, readPID(t, filepath.Join(dir, "childpid")))
}

func TestCrashOnSignal(t *testing.T) {
	t.Parallel()
	p, _ := fakeProvider(t, "signal", nil)
	_, err := p.GetInstance(t.Context(), provider.Target{InstanceID: "i"})
	var ce *CallError
	if !errors.Is(err, ErrFailed) || !errors.As(err, &ce) {
		t.Fatalf("error %v is not a failed CallError", err)
	}
	if ce.ExitCode != -1 || ce.Signal != "killed" {
		t.Errorf("ExitCode %d Signal %q", ce.ExitCode, ce.Signal)
	}
}

func TestHugeOutputIsCapped(t *testing.T) {
	// Not parallel: measures allocations.
	p, _ := fakeProvider(t, "bigout", nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := p.GetInstance(t.Context(), provider.Target{InstanceID: "i"})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrBadOutput) || !strings.Contains(err.Error(), "exceeded the limit") {
		t.Fatalf("error %v is not a stdout-limit ErrBadOutput", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 32<<20 {
		t.Errorf("allocated %d bytes for a capped 100 MB output", grown)
	}
}

func TestForkedChildHoldingStdout(t *testing.T) {
	t.Parallel()
	p, dir := fakeProvider(t, "fork", func(c *Config) { c.DrainTimeout = 200 * time.Millisecond })
	inst, err := p.GetInstance(t.Context(), provider.Target{InstanceID: "i"})
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if inst.ProviderID != "i-fork" {
		t.Errorf("got %+v", inst)
	}
	waitGone(t, readPID(t, filepath.Join(dir, "childpid")))
}

func TestConcurrencyLimit(t *testing.T) {
	t.Parallel()
	const calls, limit = 500, 10
	p, dir := fakeProvider(t, "concurrency", func(c *Config) { c.MaxConcurrency = limit })
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			bi := provider.BootstrapInstance{Name: "c-" + itoa(i), PoolID: "p"}
			if _, err := p.CreateInstance(t.Context(), bi, nil); err != nil {
				t.Errorf("create %d: %v", i, err)
				return
			}
			ok.Add(1)
		})
	}
	wg.Wait()
	if ok.Load() != calls {
		t.Fatalf("%d of %d creates succeeded", ok.Load(), calls)
	}
	if got := readIntFile(t, filepath.Join(dir, "max")); got < 1 || got > limit {
		t.Errorf("observed max concurrency %d, limit %d", got, limit)
	}
	if got := readIntFile(t, filepath.Join(dir, "cur")); got != 0 {
		t.Errorf("counter ended at %d", got)
	}
}

func TestAcquireHonoursContext(t *testing.T) {
	t.Parallel()
	p, _ := fakeProvider(t, "env", func(c *Config) { c.MaxConcurrency = 1 })
	p.sem <- struct{}{} // occupy the only slot
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := p.ListInstances(ctx, provider.Target{PoolID: "p"})
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v", err)
	}
}

func TestIntrospectUnsupported(t *testing.T) {
	t.Parallel()
	p := exitProvider(t, "", "unknown GARM_COMMAND", 1)
	info, err := p.Introspect(t.Context())
	if err != nil || info.Version != "" || info.SupportedInterfaceVersions != nil {
		t.Fatalf("Introspect = %+v, %v", info, err)
	}
	p = exitProvider(t, "", "crash", 2)
	if _, err := p.Introspect(t.Context()); !errors.Is(err, ErrFailed) {
		t.Fatalf("Introspect error %v", err)
	}
}

func readIntFile(t *testing.T, path string) int {
	t.Helper()
	return readPID(t, path)
}

// recordingObserver counts calls and keeps the last error.
type recordingObserver struct {
	mu    sync.Mutex // guards calls, last
	calls int
	last  error
}

func (o *recordingObserver) ObserveProviderCall(_, _ string, _ time.Duration, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls++
	o.last = err
}

func (o *recordingObserver) snapshot() (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls, o.last
}

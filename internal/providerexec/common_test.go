package providerexec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeProvider returns a Provider running the fake provider in the given
// fake mode; extraEnv are further manager variables ("K=V") passed through
// via the FAKEPROV_ prefix.
func fakeProvider(t testing.TB, mode string, mutate func(*Config), extraEnv ...string) (*Provider, string) {
	t.Helper()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "provider.toml")
	if err := os.WriteFile(cfgFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	environ := append([]string{"FAKEPROV_MODE=" + mode, "FAKEPROV_DIR=" + dir}, extraEnv...)
	cfg := Config{
		Name:         "fake",
		Executable:   fakeExe,
		ConfigFile:   cfgFile,
		ControllerID: "11111111-2222-3333-4444-555555555555",
		EnvPrefixes:  []string{"FAKEPROV_"},
		ExecTimeout:  time.Minute,
		Environ:      func() []string { return environ },
	}
	if mutate != nil {
		mutate(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, dir
}

// readPID reads a pid file written by a fake.
func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// processGone reports whether pid no longer runs (absent or a zombie that
// only its new parent, not us, can reap).
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone polls until pid is gone, failing after a generous safety net.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package providertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Run checks the provider and fails t with the reason of every failed step;
// the full table is logged.
func Run(t testing.TB, opts Options) Report {
	t.Helper()
	rep := Check(t.Context(), opts)
	t.Logf("provider conformance report:\n%s", rep)
	for _, f := range rep.Failures() {
		t.Errorf("%s: %s", f.Step, f.Reason)
	}
	return rep
}

// Build compiles the main package at pkg (a path or import path) into
// t.TempDir() with "go build" and returns the absolute binary path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	out := filepath.Join(t.TempDir(), "provider")
	cmd := exec.Command(goBin, "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

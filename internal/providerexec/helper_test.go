package providerexec

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fakeExe is the fake provider binary built for this test run. It is built
// without -race: race-instrumented binaries start too slowly to fork
// hundreds of them.
var fakeExe string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

// runTests builds the fake provider, runs the tests and cleans up.
func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "fakeprovider")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	fakeExe = filepath.Join(dir, "fakeprovider")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	build := exec.Command(goBin, "build", "-o", fakeExe, "./testdata/fakeprovider")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fake provider:", err)
		return 1
	}
	return m.Run()
}

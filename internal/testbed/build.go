package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ModulePath is garrison's Go module.
const ModulePath = "github.com/garrison-ci/garrison"

// BuildTimeout bounds building a program.
const BuildTimeout = 3 * time.Minute

// ErrNoToolchain says there is no Go toolchain on PATH to build a program with.
var ErrNoToolchain = errors.New("no Go toolchain on PATH")

// Build builds the package pkg of garrison's module (relative to the module, as
// "providers/sim") into a new temporary directory as name, when dir is inside garrison's
// source and a Go toolchain is on PATH. It returns the executable and a function that
// removes it.
func Build(ctx context.Context, dir, pkg, name string) (string, func(), error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrNoToolchain, err)
	}
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	mod := exec.CommandContext(ctx, goBin, "list", "-m")
	mod.Dir = dir
	if out, err := mod.Output(); err != nil || strings.TrimSpace(string(out)) != ModulePath {
		return "", nil, fmt.Errorf("%s is not in garrison's source", dir)
	}
	tmp, err := os.MkdirTemp("", "garrison-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	bin := filepath.Join(tmp, name)
	build := exec.CommandContext(ctx, goBin, "build", "-o", bin, ModulePath+"/"+pkg)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("go build: %w: %s", err, bytes.TrimSpace(out))
	}
	return bin, cleanup, nil
}

// testTools is the testtools program TestTools built for this process, and how to remove it.
var testTools struct {
	sync.Mutex // guards the fields
	bin        string
	cleanup    func()
}

// TestTools is the Options.Tools of a test: the testtools program (internal/testbed/
// testtools), built from the working directory's source once per process and removed by
// RunTests. Every provider call and every runner of a bed is a tool run: the test binary
// playing them (HelperTools) links the whole server and spends half a second of CPU
// starting under -race, testtools a few milliseconds. Without a Go toolchain the test
// binary plays them after all (HelperTools with env).
func TestTools(ctx context.Context, env string) (Command, error) {
	testTools.Lock()
	defer testTools.Unlock()
	if testTools.bin != "" {
		return Command{Argv: []string{testTools.bin}}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return Command{}, err
	}
	bin, cleanup, err := Build(ctx, wd, "internal/testbed/testtools", "testtools")
	switch {
	case errors.Is(err, ErrNoToolchain):
		return HelperTools(env)
	case err != nil:
		return Command{}, fmt.Errorf("building the test tools: %w", err)
	}
	testTools.bin, testTools.cleanup = bin, cleanup
	return Command{Argv: []string{bin}}, nil
}

// RunTests runs a test package's tests (m.Run of its TestMain) and then removes what
// TestTools built.
func RunTests(m interface{ Run() int }) int {
	code := m.Run()
	testTools.Lock()
	defer testTools.Unlock()
	if testTools.cleanup != nil {
		testTools.cleanup()
		testTools.bin, testTools.cleanup = "", nil
	}
	return code
}

// TB is the part of testing.TB that MustTestTools uses.
type TB interface {
	Helper()
	Context() context.Context
	Fatal(args ...any)
}

// MustTestTools is TestTools for a test, which it fails when the tools cannot be built.
func MustTestTools(t TB, env string) Command {
	t.Helper()
	c, err := TestTools(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

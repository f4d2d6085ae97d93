package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// simProviderName is the standalone simulation provider's file name that bench looks for
// beside the garrison executable.
const simProviderName = "garrison-provider-sim"

// errSimProvider is wrapped by every unusable --sim-provider.
var errSimProvider = errors.New("simulation provider")

// findSimProvider returns the standalone simulation provider bench runs: the given path,
// which must be an executable file, or else simProviderName beside exe when that is one,
// or else "" (this binary's `dev sim-provider`, which pays garrison's own start-up on every
// call).
func findSimProvider(given, exe string) (string, error) {
	if given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", fmt.Errorf("%w %s: %w", errSimProvider, given, err)
		}
		if !isExecutableFile(abs) {
			return "", fmt.Errorf("%w %s: not an executable file", errSimProvider, given)
		}
		return abs, nil
	}
	beside := filepath.Join(filepath.Dir(exe), simProviderName)
	if isExecutableFile(beside) {
		return beside, nil
	}
	return "", nil
}

// isExecutableFile reports whether path is a regular file with an execute bit set.
func isExecutableFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// simProviderNote says which simulation provider ran, for the result's notes.
func simProviderNote(path string) string {
	if path == "" {
		return "simulation provider: this binary's `dev sim-provider` (every call pays garrison's start-up; build ./providers/sim as " + simProviderName + " beside it for the standalone one)"
	}
	return "simulation provider: " + path
}

// buildTimeout bounds building the standalone simulation provider.
const buildTimeout = 3 * time.Minute

// buildSimProvider builds the standalone simulation provider into a new temporary
// directory when dir is inside garrison's source and a Go toolchain is on PATH (as with
// `go run ./cmd/garrison bench`). It returns the executable and a function that removes it.
func buildSimProvider(ctx context.Context, dir string) (string, func(), error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", nil, fmt.Errorf("%w: no Go toolchain to build one: %w", errSimProvider, err)
	}
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	mod := exec.CommandContext(ctx, goBin, "list", "-m")
	mod.Dir = dir
	if out, err := mod.Output(); err != nil || strings.TrimSpace(string(out)) != modulePath {
		return "", nil, fmt.Errorf("%w: %s is not in garrison's source", errSimProvider, dir)
	}
	tmp, err := os.MkdirTemp("", "garrison-sim-provider-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	bin := filepath.Join(tmp, simProviderName)
	build := exec.CommandContext(ctx, goBin, "build", "-o", bin, modulePath+"/providers/sim")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("%w: go build: %w: %s", errSimProvider, err, bytes.TrimSpace(out))
	}
	return bin, cleanup, nil
}

// modulePath is garrison's Go module.
const modulePath = "github.com/garrison-ci/garrison"

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

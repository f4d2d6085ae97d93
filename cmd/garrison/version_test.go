package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionShowsCommit builds garrison with a plain `go build` in a clone of this
// repository (Go stamps the commit only in a checkout whose .git is a directory, which a
// git worktree's is not) and checks that `garrison version` names the clone's commit.
func TestVersionShowsCommit(t *testing.T) {
	if os.Getenv("GARRISON_E2E_SLOW") != "1" {
		t.Skip("clones the repository and builds garrison (about a minute): set GARRISON_E2E_SLOW=1")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := strings.TrimSpace(gitOut(t, ".", "rev-parse", "--show-toplevel"))
	clone := filepath.Join(t.TempDir(), "garrison")
	gitOut(t, ".", "clone", "--quiet", "--no-hardlinks", root, clone)
	head := strings.TrimSpace(gitOut(t, clone, "rev-parse", "HEAD"))
	bin := filepath.Join(t.TempDir(), "garrison")
	build := exec.Command("go", "build", "-o", bin, "./cmd/garrison")
	build.Dir = clone
	// -buildvcs=auto is Go's default; the environment may have turned it off.
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || !strings.Contains(lines[0], head[:12]) || lines[1] != "commit "+head {
		t.Errorf("garrison version:\n%s\nwant the commit %s on both lines", out, head)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

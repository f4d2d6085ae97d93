// Command garrison-standin-runner is a stand-in for the GitHub Actions runner and the
// Gitea act_runner that works against garrison's forge simulator: it registers (or uses
// JIT files), takes one matching job, runs it for a while, completes it and exits. See
// package internal/standin for the modes and flags; the runner archive that wraps it is
// built by standin.Tarball.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/garrison-ci/garrison/internal/standin"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := standin.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// Package tool runs the development tools a test bed's wrapper scripts call by name: the
// simulation provider and the stand-in runner. It links nothing else, so that a program
// built on it alone (internal/testbed/testtools) starts in a few milliseconds: a test
// bed runs a tool for every provider call and every runner.
package tool

import (
	"context"
	"io"
	"os"

	"github.com/garrison-ci/garrison/internal/standin"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

// The tools, by the name their command line starts with.
const (
	// SimProvider is the simulation provider, a GARM provider executable (it reads the
	// GARM_* variables), exactly as providers/sim's main runs it.
	SimProvider = "sim-provider"
	// StandinRunner is the stand-in CI runner (internal/standin) that works against the
	// forge simulator.
	StandinRunner = "standin-runner"
)

// Run runs the tool args[0] names with the rest of args, and returns its exit code; ok is
// false when args names no tool.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case SimProvider:
		return sdk.Run(ctx, os.Getenv, stdin, stdout, stderr, simprovider.New), true
	case StandinRunner:
		return standin.Main(ctx, args[1:], stdout, stderr, os.Getenv), true
	}
	return 0, false
}

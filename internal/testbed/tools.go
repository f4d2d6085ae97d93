package testbed

import (
	"context"
	"io"
	"os"

	"github.com/garrison-ci/garrison/internal/standin"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

// The tools a bed's wrapper scripts run through Options.Tools.
const (
	// ToolSimProvider is the simulation provider, a GARM provider executable (it reads
	// the GARM_* variables), exactly as providers/sim's main runs it.
	ToolSimProvider = "sim-provider"
	// ToolStandinRunner is the stand-in CI runner (internal/standin) that works against
	// the forge simulator.
	ToolStandinRunner = "standin-runner"
)

// RunTool runs the tool args[0] names with the rest of args, and returns its exit code;
// ok is false when args names no tool. garrison-dev's hidden subcommands and the test
// binaries that play garrison-dev call it.
func RunTool(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case ToolSimProvider:
		return sdk.Run(ctx, os.Getenv, stdin, stdout, stderr, simprovider.New), true
	case ToolStandinRunner:
		return standin.Main(ctx, args[1:], stdout, stderr, os.Getenv), true
	}
	return 0, false
}

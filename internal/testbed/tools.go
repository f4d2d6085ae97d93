package testbed

import (
	"context"
	"io"

	"github.com/garrison-ci/garrison/internal/testbed/tool"
)

// The tools a bed's wrapper scripts run through Options.Tools.
const (
	// ToolSimProvider is the simulation provider, a GARM provider executable (it reads
	// the GARM_* variables), exactly as providers/sim's main runs it.
	ToolSimProvider = tool.SimProvider
	// ToolStandinRunner is the stand-in CI runner (internal/standin) that works against
	// the forge simulator.
	ToolStandinRunner = tool.StandinRunner
)

// RunTool runs the tool args[0] names with the rest of args, and returns its exit code;
// ok is false when args names no tool. garrison-dev's hidden subcommands and the test
// binaries that play garrison-dev call it.
func RunTool(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	return tool.Run(ctx, args, stdin, stdout, stderr)
}

package main

import (
	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// newToolCmds returns the hidden commands the demo's and the benchmark's wrapper scripts
// run (testbed.RunTool), so that garrison-dev can play every part: the simulation
// provider, exactly as providers/sim's main runs it, and the stand-in runner.
func newToolCmds() []*cobra.Command {
	tool := func(name, short string) *cobra.Command {
		return &cobra.Command{
			Use:                name + " [args]",
			Short:              short,
			Hidden:             true,
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				code, _ := testbed.RunTool(cmd.Context(), append([]string{name}, args...), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
				return exitCodeErr(code)
			},
		}
	}
	return []*cobra.Command{
		tool(testbed.ToolSimProvider, "Run the simulation provider (a GARM provider executable; reads GARM_* variables)"),
		tool(testbed.ToolStandinRunner, "Run the stand-in CI runner that works against the forge simulator"),
	}
}

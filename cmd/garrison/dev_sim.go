package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/standin"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

// newSimProviderCmd runs the simulation provider, exactly as providers/sim's main does,
// so that one garrison binary can play every part of `garrison demo`.
func newSimProviderCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "sim-provider",
		Short:  "Run the simulation provider (a GARM provider executable; reads GARM_* variables)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code := sdk.Run(cmd.Context(), os.Getenv, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), simprovider.New)
			return exitCodeErr(code)
		},
	}
}

// newStandinRunnerCmd runs the stand-in runner (internal/standin) with its own arguments.
func newStandinRunnerCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "standin-runner MODE [flags]",
		Short:              "Run the stand-in CI runner that works against the forge simulator",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			code := standin.Main(cmd.Context(), args, cmd.OutOrStdout(), cmd.ErrOrStderr(), os.Getenv)
			return exitCodeErr(code)
		},
	}
}

// exitCodeErr turns a non-zero exit code of a command that printed its own message into
// an exitError.
func exitCodeErr(code int) error {
	if code == 0 {
		return nil
	}
	return exitError{code: code}
}

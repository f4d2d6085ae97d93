package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/cli"
)

// addClientCommands attaches the garm-cli compatible client commands to root. It then
// makes every command of root's tree that only groups subcommands refuse an unknown one
// (exit status 1, with suggestions), cobra's completion command included, which is
// otherwise added later.
func addClientCommands(root *cobra.Command, stdout, stderr io.Writer) {
	root.AddCommand(cli.Commands(cli.Options{Stdout: stdout, Stderr: stderr})...)
	root.InitDefaultCompletionCmd()
	cli.RejectUnknownSubcommands(root)
}

package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/server"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the garrison version and the commit it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi := server.Build()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "garrison %s (%s, %s/%s)\n", bi.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			switch {
			case bi.Revision == "":
				fmt.Fprintln(out, "commit unknown (built outside a git checkout, without -ldflags)")
			case bi.Modified:
				fmt.Fprintf(out, "commit %s, with uncommitted changes\n", bi.Revision)
			default:
				fmt.Fprintf(out, "commit %s\n", bi.Revision)
			}
			if bi.Time != "" {
				fmt.Fprintf(out, "commit time %s\n", bi.Time)
			}
			return nil
		},
	}
}

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
		Short: "Print the garrison version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "garrison %s (%s, %s/%s)\n", server.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

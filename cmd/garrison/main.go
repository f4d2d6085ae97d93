// Command garrison is the garrison runner manager: `garrison server` runs the controller,
// and the other subcommands are its command-line client (a superset of garm-cli's). The
// development tools (demo, benchmark, forge simulator, provider check) are in
// cmd/garrison-dev.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one garrison command line and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintln(stderr, "Error:", err)
		return 1
	}
	return 0
}

// exitError ends the process with a code after the command printed its own message.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "garrison",
		Short:         "garrison keeps pools of fresh, single-use CI runners",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newServerCmd(), newVersionCmd(), newAdminCmd())
	root.AddCommand(newImportGARMCmd())
	addClientCommands(root, stdout, stderr)
	return root
}

// Command garrison-dev holds garrison's development tools, which the production binary
// (cmd/garrison) does not link: the offline demo, the benchmark, the GitHub/Gitea
// simulator, the simulation provider and the stand-in runner, and the provider
// conformance check.
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

	"github.com/garrison-ci/garrison/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one garrison-dev command line and returns the process exit code.
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

// exitCodeErr turns a non-zero exit code of a command that printed its own message into
// an exitError.
func exitCodeErr(code int) error {
	if code == 0 {
		return nil
	}
	return exitError{code: code}
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "garrison-dev",
		Short:         "garrison's development tools: demo, benchmark, forge simulator, provider check",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newDemoCmd(), newBenchCmd(), newForgesimCmd(), newProviderCmd())
	root.AddCommand(newToolCmds()...)
	root.InitDefaultCompletionCmd()
	cli.RejectUnknownSubcommands(root)
	return root
}

package uitest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// toolsHelperEnv makes the test binary play garrison-dev's tools (see TestHelperProcess).
const toolsHelperEnv = "GARRISON_UITEST_HELPER"

// TestHelperProcess is not a test. The bed's wrapper scripts run this test binary with
// GARRISON_UITEST_HELPER=1 and a tool's command line after "--" (sim-provider,
// standin-runner), the way garrison-dev runs them.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(toolsHelperEnv) != "1" {
		t.Skip("helper process of the tests that boot simulated instances")
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, ok := testbed.RunTool(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if !ok {
		fmt.Fprintf(os.Stderr, "no tool %q\n", args)
		code = 2
	}
	os.Exit(code)
}

// helperTools makes the bed's wrapper scripts run this test binary as garrison-dev's
// tools.
func helperTools(t *testing.T) testbed.Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return testbed.Command{Env: []string{toolsHelperEnv + "=1"}, Argv: []string{exe, "-test.run=^TestHelperProcess$", "--"}}
}

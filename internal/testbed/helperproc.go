package testbed

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// Tests run garrison-dev's tools (sim-provider, standin-runner) as their own test binary:
// the bed's wrapper scripts call `<test binary> -test.run=^TestHelperProcess$ -- TOOL ARGS`
// with env=1 set. A package's TestHelperProcess calls ServeHelperProcess, and its tests
// pass HelperTools as Options.Tools.

// ServeHelperProcess, when the environment variable env is "1", runs the tool named after
// "--" on the command line and exits with its code; otherwise it returns false at once (the
// caller skips: it is not a test).
func ServeHelperProcess(env string) bool {
	if os.Getenv(env) != "1" {
		return false
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, ok := RunTool(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if !ok {
		fmt.Fprintf(os.Stderr, "no tool %q\n", args)
		code = 2
	}
	os.Exit(code)
	return true
}

// HelperTools is the command that runs this test binary as garrison-dev's tools through
// its TestHelperProcess, with env set to "1".
func HelperTools(env string) (Command, error) {
	exe, err := os.Executable()
	if err != nil {
		return Command{}, err
	}
	return Command{Env: HelperEnv(env), Argv: []string{exe, "-test.run=^TestHelperProcess$", "--"}}, nil
}

// HelperEnv is the environment a test binary runs as a helper process with: env=1, and
// GORACE with atexit_sleep_ms=0 added to what the tests run with. A binary built with
// -race sleeps a second at exit by default (so that other threads can finish their race
// reports), and a test bed runs such binaries by the hundred, as every provider call and
// every runner: the sleeps made an instance's create and delete take seconds each. Race
// reports are still printed; only the grace for those of other threads at the moment of
// exit is gone.
func HelperEnv(env string) []string {
	race := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return []string{env + "=1", "GORACE=" + race}
}

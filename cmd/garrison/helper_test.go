package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// helperEnv makes the test binary play the garrison binary, and garrison-dev's tools
// (see TestHelperProcess).
const helperEnv = "GARRISON_HELPER_PROCESS"

// TestHelperProcess is not a test. The crash and signal tests run this test binary as
// `garrison server` with GARRISON_HELPER_PROCESS=1 and a garrison command line after
// "--"; the testbed's wrapper scripts run it the same way with a tool of garrison-dev
// (sim-provider, standin-runner).
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process of the tests that run garrison as a process")
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, ok := testbed.RunTool(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	if !ok {
		code = run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	}
	stop()
	os.Exit(code)
}

// helperTools runs this test binary as the garrison binary (see TestHelperProcess).
func helperTools(t *testing.T) testbed.Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return testbed.Command{Env: testbed.HelperEnv(helperEnv), Argv: []string{exe, "-test.run=^TestHelperProcess$", "--"}}
}

// testTools is the tools the testbed's wrapper scripts run: the testtools program, built
// once (or this test binary, see TestHelperProcess, without a Go toolchain).
func testTools(t *testing.T) testbed.Command {
	t.Helper()
	return testbed.MustTestTools(t, helperEnv)
}

func TestMain(m *testing.M) { os.Exit(testbed.RunTests(m)) }

// e2eDeadline bounds every wait of the crash test: generous, since it only asserts what
// happened, never how fast.
const e2eDeadline = 90 * time.Second

// skipE2E skips end-to-end tests in -short mode and on hosts that cannot boot the
// simulated instances.
func skipE2E(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end to end: a server, the forge simulator and many processes")
	}
	if err := testbed.CheckHost(); err != nil {
		t.Skip(err)
	}
}

// eventually polls cond every 200ms until it holds, failing the test after e2eDeadline
// with the last state cond described.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	eventuallyWithin(t, e2eDeadline, what, cond)
}

// eventuallyWithin is eventually with its own deadline.
func eventuallyWithin(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) || t.Context().Err() != nil {
			t.Fatalf("timed out after %s waiting for %s; last state: %s", limit, what, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// expectNoLeaks checks, once the server settled, that garrison, the provider and the
// forge agree there is nothing left and no instance process is alive.
func expectNoLeaks(t *testing.T, b *testbed.Bed, limit time.Duration) {
	t.Helper()
	eventuallyWithin(t, limit, "nothing left in garrison, the provider, the forge or the process table", func() (bool, string) {
		l, err := b.CountLeaks(t.Context())
		if err != nil {
			return false, err.Error()
		}
		return l == testbed.Leaks{}, fmt.Sprintf("%+v", l)
	})
}

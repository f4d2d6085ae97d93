package uitest

import (
	"os"
	"testing"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// toolsHelperEnv makes the test binary play garrison-dev's tools (see TestHelperProcess).
const toolsHelperEnv = "GARRISON_UITEST_HELPER"

// TestHelperProcess is not a test. The bed's wrapper scripts run this test binary with
// GARRISON_UITEST_HELPER=1 and a tool's command line after "--" (sim-provider,
// standin-runner), the way garrison-dev runs them.
func TestHelperProcess(t *testing.T) {
	if !testbed.ServeHelperProcess(toolsHelperEnv) {
		t.Skip("helper process of the tests that boot simulated instances")
	}
}

// helperTools is the tools the bed's wrapper scripts run: the testtools program, built
// once (or this test binary, see TestHelperProcess, without a Go toolchain).
func helperTools(t *testing.T) testbed.Command {
	t.Helper()
	return testbed.MustTestTools(t, toolsHelperEnv)
}

func TestMain(m *testing.M) { os.Exit(testbed.RunTests(m)) }

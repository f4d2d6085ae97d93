package uitest

import (
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

// helperTools makes the bed's wrapper scripts run this test binary as garrison-dev's
// tools.
func helperTools(t *testing.T) testbed.Command {
	t.Helper()
	c, err := testbed.HelperTools(toolsHelperEnv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

package bench

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// toolsHelperEnv makes the test binary play garrison-dev's tools (see TestHelperProcess).
const toolsHelperEnv = "GARRISON_BENCH_HELPER"

// TestHelperProcess is not a test. The bench's provider wrapper runs this test binary
// with GARRISON_BENCH_HELPER=1 and a tool's command line after "--" (sim-provider), the
// way garrison-dev runs it.
func TestHelperProcess(t *testing.T) {
	if !testbed.ServeHelperProcess(toolsHelperEnv) {
		t.Skip("helper process of TestScenarios")
	}
}

// helperTools is the tools the bench's wrapper scripts run: the testtools program,
// built once (or this test binary, see TestHelperProcess, without a Go toolchain).
func helperTools(t *testing.T) testbed.Command {
	t.Helper()
	return testbed.MustTestTools(t, toolsHelperEnv)
}

// builds are the programs built by built, by name; TestMain removes them.
var (
	buildsMu sync.Mutex // guards builds
	builds   = map[string]string{}
)

func TestMain(m *testing.M) {
	code := testbed.RunTests(m)
	for _, bin := range builds {
		_ = os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

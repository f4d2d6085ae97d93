package main

import (
	"testing"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// crashServer runs `garrison server` as a child process (this test binary playing the
// garrison binary, see TestHelperProcess) on a fixed data directory and port, so
// that it can be killed and started again as the same server.
type crashServer = testbed.ServerProcess

// newCrashServer prepares a server on dataDir, listening on addr with config cfg, that
// logs to logPath. It does not start it; it is killed at the end of the test.
func newCrashServer(t *testing.T, dataDir, addr, cfg, logPath string) *crashServer {
	t.Helper()
	s, err := testbed.NewServerProcess(helperTools(t), dataDir, addr, cfg, logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

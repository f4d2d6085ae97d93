package testbed_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	incus "github.com/lxc/incus/v6/client"
	"github.com/lxc/incus/v6/shared/api"
)

// rdIncusBridgeIP is incusbr0's address (scripts/daemons/preseed.yaml, real-daemons.md N-1).
const rdIncusBridgeIP = "10.213.0.1"

// TestDaemonE2EIncus runs jobs end to end on real Incus containers: a queued job makes a
// container that runs garrison's install script through cloud-init, calls back over the
// bridge, registers the stand-in runner with the simulator (JIT), runs the job and is
// deleted. It reports the time from queueing to the runner's idle callback.
func TestDaemonE2EIncus(t *testing.T) {
	rdSkip(t)
	socket, image := os.Getenv("GARRISON_INCUS_SOCKET"), os.Getenv("GARRISON_INCUS_IMAGE")
	if socket == "" {
		socket = "/var/lib/incus/unix.socket"
	}
	if image == "" {
		image = "garrison-runner"
	}
	// setup.sh makes a profile whose root disk is on a btrfs pool (real-daemons.md §3.4):
	// instances are snapshots of the unpacked image instead of a fresh unpack each.
	flavor := os.Getenv("GARRISON_INCUS_FAST_PROFILE")
	if flavor == "" {
		flavor = "default" // the default profile: root on the dir pool, no limits
	}
	if _, err := os.Stat(socket); err != nil {
		t.Fatalf("%s=1 but the Incus socket is missing (run scripts/daemons/setup.sh): %v", rdDaemonsEnv, err)
	}
	runRealDaemonE2E(t, rdBackend{
		name:     "incus",
		bridgeIP: rdIncusBridgeIP,
		pkg:      "github.com/garrison-ci/garrison/providers/incus",
		config:   fmt.Sprintf("unix_socket_path = %q\ninclude_default_profile = true\n", socket),
		image:    image,
		flavor:   flavor,
		specs:    `{"disable_updates":true}`,
		leftovers: func(_ context.Context, controllerID string) ([]string, error) {
			return rdIncusTagged(socket, controllerID)
		},
	})
}

// rdIncusTagged lists the names of the instances whose user.runner.controller-id is
// controllerID, asking the daemon directly.
func rdIncusTagged(socket, controllerID string) ([]string, error) {
	c, err := incus.ConnectIncusUnix(socket, nil)
	if err != nil {
		return nil, err
	}
	defer c.Disconnect()
	insts, err := c.GetInstances(api.InstanceTypeAny)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, in := range insts {
		if in.Config["user.runner.controller-id"] == controllerID {
			names = append(names, in.Name)
		}
	}
	return names, nil
}

package testbed_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// rdDockerBridgeIP is docker0's address (dockerd --bip, real-daemons.md N-1).
const rdDockerBridgeIP = "10.216.0.1"

// TestDaemonE2EDocker runs jobs end to end on real Docker containers: a queued job makes
// a container whose entry script runs garrison's install script, calls back over the
// bridge, registers the stand-in runner with the simulator (JIT), runs the job and is
// deleted. It reports the time from queueing to the runner's idle callback.
func TestDaemonE2EDocker(t *testing.T) {
	rdSkip(t)
	host, image := os.Getenv("GARRISON_DOCKER_HOST"), os.Getenv("GARRISON_DOCKER_IMAGE")
	if host == "" {
		host = "unix:///var/lib/garrison-daemons/docker/docker.sock"
	}
	if image == "" {
		image = "garrison/runner:bookworm"
	}
	if sock, ok := strings.CutPrefix(host, "unix://"); ok {
		if _, err := os.Stat(sock); err != nil {
			t.Fatalf("%s=1 but the Docker socket is missing (run scripts/daemons/setup.sh): %v", rdDaemonsEnv, err)
		}
	}
	runRealDaemonE2E(t, rdBackend{
		name:     "docker",
		bridgeIP: rdDockerBridgeIP,
		pkg:      "github.com/garrison-ci/garrison/providers/docker",
		config:   fmt.Sprintf("host = %q\nstop_timeout_seconds = 2\n", host),
		image:    image,
		flavor:   "small",
		specs:    `{"disable_updates":true}`,
		leftovers: func(ctx context.Context, controllerID string) ([]string, error) {
			return rdDockerTagged(ctx, host, controllerID)
		},
	})
}

// rdDockerTagged lists the names of the containers (running or not) labelled
// runner.controller-id=controllerID, asking the daemon directly.
func rdDockerTagged(ctx context.Context, host, controllerID string) ([]string, error) {
	c, err := client.NewClientWithOpts(client.WithHost(host), client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	list, err := c.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", "runner.controller-id="+controllerID))})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range list {
		names = append(names, strings.Join(s.Names, ","))
	}
	return names, nil
}

package main

import (
	"archive/tar"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/client"

	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// skipMessage is shown when the real daemon is not requested.
const skipMessage = "set GARRISON_TEST_DAEMONS=1 and run scripts/daemons/setup.sh to test against a real Docker daemon"

// daemonEnv returns the host and image set up by scripts/daemons/setup.sh,
// or skips the test.
func daemonEnv(t *testing.T) (host, image string) {
	t.Helper()
	if os.Getenv("GARRISON_TEST_DAEMONS") != "1" {
		t.Skip(skipMessage)
	}
	host, image = os.Getenv("GARRISON_DOCKER_HOST"), os.Getenv("GARRISON_DOCKER_IMAGE")
	if host == "" {
		host = "unix:///var/lib/garrison-daemons/docker/docker.sock"
	}
	if image == "" {
		image = "garrison/runner:bookworm"
	}
	if _, err := os.Stat(strings.TrimPrefix(host, "unix://")); strings.HasPrefix(host, "unix://") && err != nil {
		t.Fatalf("GARRISON_TEST_DAEMONS=1 but the Docker socket is missing (run scripts/daemons/setup.sh): %v", err)
	}
	return host, image
}

// setup builds the provider and writes its config.
func setup(t *testing.T, host string) (exe, cfg string) {
	t.Helper()
	exe = providertest.Build(t, ".")
	cfg = filepath.Join(t.TempDir(), "docker.toml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "host = %q\nstop_timeout_seconds = 2\n", host), 0o600); err != nil {
		t.Fatal(err)
	}
	return exe, cfg
}

// newHost returns the host side of the provider for controller and removes
// every container of the controller when the test ends.
func newHost(t *testing.T, exe, cfg, controller string) *providerexec.Provider {
	t.Helper()
	p, err := providerexec.New(providerexec.Config{Name: "docker", Executable: exe, ConfigFile: cfg,
		InterfaceVersion: provider.InterfaceV011, ControllerID: controller, ExecTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := p.RemoveAllInstances(ctx, provider.Target{PoolID: "cleanup"}); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return p
}

// controllerID returns a fresh UUID-shaped controller id.
func controllerID(prefix string) string {
	return prefix + "-2222-4333-8444-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
}

// TestDaemonConformance runs the conformance kit against the real daemon.
func TestDaemonConformance(t *testing.T) {
	host, image := daemonEnv(t)
	exe, cfg := setup(t, host)
	controller := controllerID("33333333")
	newHost(t, exe, cfg, controller)
	providertest.Run(t, providertest.Options{
		Executable: exe, ConfigFile: cfg, InterfaceVersion: provider.InterfaceV011,
		ControllerID: controller, Image: image, Flavor: "small",
	})
}

// TestDaemonBoot creates a container and checks its entry ran the
// pre-install script as root and the rendered install script as the
// runner user, and that it has an address on the project's bridge.
func TestDaemonBoot(t *testing.T) {
	host, image := daemonEnv(t)
	exe, cfg := setup(t, host)
	p := newHost(t, exe, cfg, controllerID("44444444"))
	name := fmt.Sprintf("garrison-boot-%d", time.Now().UnixNano()%1e9)
	tmpl := "#!/bin/bash\necho \"{{ .RunnerName }} $(id -un) {{ index .ExtraContext \"greeting\" }}\" > /tmp/garrison-install-ran\n"
	specs := fmt.Sprintf(`{"extra_context":{"greeting":"hello"},"runner_install_template":%q,"pre_install_scripts":{"01-mark":%q}}`,
		b64(tmpl), b64("#!/bin/sh\nid -un > /root/garrison-pre-ran\n"))
	bi := provider.BootstrapInstance{Name: name, PoolID: "boot-pool", OSType: "linux", OSArch: "amd64", Image: image,
		ExtraSpecs: json.RawMessage(specs), MetadataURL: "http://10.216.0.1:1/metadata", CallbackURL: "http://10.216.0.1:1/callbacks"}
	start := time.Now()
	inst, err := p.CreateInstance(t.Context(), bi, bi.ExtraSpecs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %s (%s, %v) in %s", inst.ProviderID, inst.Status, inst.Addresses, time.Since(start).Round(time.Millisecond))
	if len(inst.Addresses) == 0 || !strings.HasPrefix(inst.Addresses[0].Address, "10.216.0.") {
		t.Errorf("addresses %v, want one on 10.216.0.0/24", inst.Addresses)
	}
	c, err := client.NewClientWithOpts(client.WithHost(host), client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checks := map[string]string{"/root/garrison-pre-ran": "root", "/tmp/garrison-install-ran": name + " runner hello"}
	for path, want := range checks {
		deadline := time.Now().Add(30 * time.Second)
		got := ""
		for time.Now().Before(deadline) {
			if got = readFile(t.Context(), c, name, path); strings.TrimSpace(got) == want {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if strings.TrimSpace(got) != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	t.Logf("entry script done in %s", time.Since(start).Round(time.Millisecond))
}

// readFile returns a file of a container, or the error text.
func readFile(ctx context.Context, c *client.Client, name, path string) string {
	rc, _, err := c.CopyFromContainer(ctx, name, path)
	if err != nil {
		return err.Error()
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	if _, err := tr.Next(); err != nil {
		return err.Error()
	}
	b, _ := io.ReadAll(tr)
	return string(b)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

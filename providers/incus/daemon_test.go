package main

import (
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

	incus "github.com/lxc/incus/v6/client"

	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// skipMessage is shown when the real daemon is not requested.
const skipMessage = "set GARRISON_TEST_DAEMONS=1 and run scripts/daemons/setup.sh to test against a real Incus daemon"

// daemonEnv returns the socket and image of the daemon set up by
// scripts/daemons/setup.sh, or skips the test.
func daemonEnv(t *testing.T) (socket, image string) {
	t.Helper()
	if os.Getenv("GARRISON_TEST_DAEMONS") != "1" {
		t.Skip(skipMessage)
	}
	socket, image = os.Getenv("GARRISON_INCUS_SOCKET"), os.Getenv("GARRISON_INCUS_IMAGE")
	if socket == "" {
		socket = "/var/lib/incus/unix.socket"
	}
	if image == "" {
		image = "garrison-runner"
	}
	if _, err := os.Stat(socket); err != nil {
		t.Fatalf("GARRISON_TEST_DAEMONS=1 but the Incus socket is missing (run scripts/daemons/setup.sh): %v", err)
	}
	return socket, image
}

// setup builds the provider and writes its config.
func setup(t *testing.T, socket string) (exe, cfg string) {
	t.Helper()
	exe = providertest.Build(t, ".")
	cfg = filepath.Join(t.TempDir(), "incus.toml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "unix_socket_path = %q\ninclude_default_profile = true\n", socket), 0o600); err != nil {
		t.Fatal(err)
	}
	return exe, cfg
}

// newHost returns the host side of the provider for controller and removes
// every instance of the controller when the test ends.
func newHost(t *testing.T, exe, cfg, controller string) *providerexec.Provider {
	t.Helper()
	p, err := providerexec.New(providerexec.Config{Name: "incus", Executable: exe, ConfigFile: cfg,
		InterfaceVersion: provider.InterfaceV011, ControllerID: controller, ExecTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := p.RemoveAllInstances(ctx, provider.Target{PoolID: "cleanup"}); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return p
}

// TestDaemonConformance runs the conformance kit against the real daemon.
func TestDaemonConformance(t *testing.T) {
	socket, image := daemonEnv(t)
	exe, cfg := setup(t, socket)
	controller := "11111111-2222-4333-8444-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
	newHost(t, exe, cfg, controller)
	providertest.Run(t, providertest.Options{
		Executable: exe, ConfigFile: cfg, InterfaceVersion: provider.InterfaceV011,
		ControllerID: controller, Image: image, ExtraSpecs: json.RawMessage(`{"disable_updates":true}`),
	})
}

// TestDaemonBoot creates an instance and checks it boots: it gets an
// address on the bridge and cloud-init runs the pre-install script as root
// and the rendered install script as the runner user.
func TestDaemonBoot(t *testing.T) {
	socket, image := daemonEnv(t)
	exe, cfg := setup(t, socket)
	controller := "22222222-2222-4333-8444-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
	p := newHost(t, exe, cfg, controller)
	name := fmt.Sprintf("garrison-boot-%d", time.Now().UnixNano()%1e9)
	tmpl := "#!/bin/bash\necho \"{{ .RunnerName }} $(id -un) {{ index .ExtraContext \"greeting\" }}\" > /tmp/garrison-install-ran\n"
	specs := fmt.Sprintf(`{"disable_updates":true,"extra_context":{"greeting":"hello"},"runner_install_template":%q,"pre_install_scripts":{"01-mark":%q}}`,
		b64(tmpl), b64("#!/bin/sh\nid -un > /root/garrison-pre-ran\n"))
	bi := provider.BootstrapInstance{Name: name, PoolID: "boot-pool", OSType: "linux", OSArch: "amd64", Image: image,
		ExtraSpecs: json.RawMessage(specs), MetadataURL: "http://10.213.0.1:1/metadata", CallbackURL: "http://10.213.0.1:1/callbacks"}
	start := time.Now()
	inst, err := p.CreateInstance(t.Context(), bi, bi.ExtraSpecs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %s (%s) in %s", inst.ProviderID, inst.Status, time.Since(start).Round(time.Millisecond))
	c, err := incus.ConnectIncusUnix(socket, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 90*time.Second, "an address on 10.213.0.0/24", func() (string, bool) {
		got, err := p.GetInstance(t.Context(), provider.Target{PoolID: "boot-pool", InstanceID: inst.ProviderID})
		if err != nil {
			return err.Error(), false
		}
		for _, a := range got.Addresses {
			if strings.HasPrefix(a.Address, "10.213.0.") {
				return a.Address, true
			}
		}
		return fmt.Sprint(got.Addresses), false
	})
	checks := map[string]string{"/root/garrison-pre-ran": "root", "/tmp/garrison-install-ran": name + " runner hello"}
	for path, want := range checks {
		waitFor(t, 90*time.Second, path+" = "+want, func() (string, bool) {
			got := readFile(c, name, path)
			return got, strings.TrimSpace(got) == want
		})
	}
	t.Logf("booted and ran cloud-init in %s", time.Since(start).Round(time.Millisecond))
}

// waitFor polls cond every half second until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		var ok bool
		if last, ok = cond(); ok {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s (last: %s)", timeout, what, last)
}

// readFile returns a file of an instance, or the error text.
func readFile(c incus.InstanceServer, name, path string) string {
	rc, _, err := c.GetInstanceFile(name, path)
	if err != nil {
		return err.Error()
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return string(b)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

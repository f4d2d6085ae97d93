package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	incus "github.com/lxc/incus/v6/client"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

// The LXD tests are manual (not in CI): scripts/daemons/lxd/try.sh sets up
// Debian's lxd 5.0 on the fixed bridge 10.214.0.1/24 and runs them with
// GARRISON_TEST_LXD=1. See "LXD" in README.md.
const lxdSkipMessage = "set GARRISON_TEST_LXD=1 and run scripts/daemons/lxd/try.sh to test against a real LXD daemon"

// lxdSubnetPrefix is the bridge subnet try.sh gives LXD (real-daemons.md N-1).
const lxdSubnetPrefix = "10.214.0."

// lxdEnv describes the LXD daemon under test.
type lxdEnv struct {
	socket, image, flavor string
	exe, cfg              string
}

// lxdSetup returns the LXD daemon's settings, or skips the test. The
// provider is built from this package unless GARRISON_LXD_PROVIDER names an
// executable (to try a modified build).
func lxdSetup(t *testing.T) lxdEnv {
	t.Helper()
	if os.Getenv("GARRISON_TEST_LXD") != "1" {
		t.Skip(lxdSkipMessage)
	}
	e := lxdEnv{socket: envOr("GARRISON_LXD_SOCKET", "/var/lib/lxd/unix.socket"),
		image: envOr("GARRISON_LXD_IMAGE", "garrison-runner"), flavor: os.Getenv("GARRISON_LXD_FLAVOR")}
	if _, err := os.Stat(e.socket); err != nil {
		t.Fatalf("GARRISON_TEST_LXD=1 but the LXD socket is missing (run scripts/daemons/lxd/try.sh): %v", err)
	}
	if e.exe = os.Getenv("GARRISON_LXD_PROVIDER"); e.exe == "" {
		e.exe = providertest.Build(t, ".")
	}
	e.cfg = filepath.Join(t.TempDir(), "lxd.toml")
	if err := os.WriteFile(e.cfg, fmt.Appendf(nil, "unix_socket_path = %q\ninclude_default_profile = true\n", e.socket), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// TestLXDConformance runs the conformance kit against an LXD server.
func TestLXDConformance(t *testing.T) {
	e := lxdSetup(t)
	controller := "33333333-2222-4333-8444-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
	newHost(t, e.exe, e.cfg, controller)
	providertest.Run(t, providertest.Options{
		Executable: e.exe, ConfigFile: e.cfg, InterfaceVersion: provider.InterfaceV011,
		ControllerID: controller, Image: e.image, Flavor: e.flavor,
		ExtraSpecs: json.RawMessage(`{"disable_updates":true}`),
	})
}

// TestLXDBoot creates an instance on an LXD server and checks it boots: it
// gets an address on the bridge, the user-data went into the key the server
// supports, and cloud-init runs the pre-install script as root and the
// rendered install script as the runner user.
func TestLXDBoot(t *testing.T) {
	e := lxdSetup(t)
	controller := "44444444-2222-4333-8444-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
	p := newHost(t, e.exe, e.cfg, controller)
	c, err := incus.ConnectIncusUnix(e.socket, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, _, err := c.GetServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server %s %s", srv.Environment.Server, srv.Environment.ServerVersion)
	key := "user.user-data"
	if c.HasExtension("cloud_init") {
		key = "cloud-init.user-data"
	}

	name := fmt.Sprintf("garrison-lxd-boot-%d", time.Now().UnixNano()%1e9)
	tmpl := "#!/bin/bash\necho \"{{ .RunnerName }} $(id -un) {{ index .ExtraContext \"greeting\" }}\" > /tmp/garrison-install-ran\n"
	specs := fmt.Sprintf(`{"disable_updates":true,"extra_context":{"greeting":"hello"},"runner_install_template":%q,"pre_install_scripts":{"01-mark":%q}}`,
		b64(tmpl), b64("#!/bin/sh\nid -un > /root/garrison-pre-ran\n"))
	bi := provider.BootstrapInstance{Name: name, PoolID: "boot-pool", OSType: "linux", OSArch: "amd64",
		Image: e.image, Flavor: e.flavor, ExtraSpecs: json.RawMessage(specs),
		MetadataURL: "http://10.214.0.1:1/metadata", CallbackURL: "http://10.214.0.1:1/callbacks"}
	start := time.Now()
	inst, err := p.CreateInstance(t.Context(), bi, bi.ExtraSpecs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %s (%s) in %s", inst.ProviderID, inst.Status, time.Since(start).Round(time.Millisecond))
	if inst.Status != "running" {
		t.Errorf("status after create = %q, want running (the server ignores start-on-create without the instance_create_start extension)", inst.Status)
	}

	full, _, err := c.GetInstance(name)
	if err != nil {
		t.Fatal(err)
	}
	if ud := full.Config[key]; !strings.HasPrefix(ud, userdata.Header) {
		t.Errorf("config %s = %.40q, want the #cloud-config user-data", key, ud)
	}
	if key == "user.user-data" {
		t.Log("this server has no cloud_init extension: the image's templates must read user.user-data")
	}
	if inst.Status != "running" {
		return
	}

	waitFor(t, 90*time.Second, "an address on "+lxdSubnetPrefix+"0/24", func() (string, bool) {
		got, err := p.GetInstance(t.Context(), provider.Target{PoolID: "boot-pool", InstanceID: inst.ProviderID})
		if err != nil {
			return err.Error(), false
		}
		for _, a := range got.Addresses {
			if strings.HasPrefix(a.Address, lxdSubnetPrefix) {
				return a.Address, true
			}
		}
		return fmt.Sprint(got.Addresses), false
	})
	checks := map[string]string{"/root/garrison-pre-ran": "root", "/tmp/garrison-install-ran": name + " runner hello"}
	for path, want := range checks {
		waitFor(t, 120*time.Second, path+" = "+want, func() (string, bool) {
			got := readFile(c, name, path)
			return got, strings.TrimSpace(got) == want
		})
	}
	t.Logf("booted and ran cloud-init in %s", time.Since(start).Round(time.Millisecond))
}

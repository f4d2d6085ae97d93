package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// trivialBoot is the install template of the script-mode conformance run: it just waits
// until DeleteInstance ends it.
const trivialBoot = "#!/bin/bash\necho booting {{ .RunnerName }}\nexec sleep 300\n"

// TestConformance builds the sim provider and runs the conformance kit against it under
// both interface versions, in record and in script boot mode.
func TestConformance(t *testing.T) {
	exe := providertest.Build(t, ".")
	scriptSpecs, _ := json.Marshal(map[string]any{"failure_rate": 0,
		"runner_install_template": base64.StdEncoding.EncodeToString([]byte(trivialBoot))})
	modes := []struct {
		name, config string
		specs        json.RawMessage
	}{
		{"record", "", json.RawMessage(`{"failure_rate":0}`)},
		{"script", "boot = \"script\"\n", scriptSpecs},
	}
	for _, mode := range modes {
		for _, version := range []string{provider.InterfaceV010, provider.InterfaceV011} {
			t.Run(mode.name+"/"+version, func(t *testing.T) {
				dir := t.TempDir()
				state := filepath.Join(dir, "state")
				cfg := filepath.Join(dir, "sim.toml")
				content := fmt.Sprintf("state_dir = %q\nboot_delay = \"10ms\"\n%s", state, mode.config)
				if err := os.WriteFile(cfg, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				providertest.Run(t, providertest.Options{
					Executable: exe, ConfigFile: cfg, InterfaceVersion: version,
					Image: "ubuntu:24.04", Flavor: "small", ExtraSpecs: mode.specs,
				})
				if left, _ := os.ReadDir(filepath.Join(state, "boot")); len(left) != 0 {
					t.Fatalf("instance directories left behind: %v", left)
				}
			})
		}
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// TestConformance builds the sim provider and runs the conformance kit
// against it under both interface versions.
func TestConformance(t *testing.T) {
	exe := providertest.Build(t, ".")
	for _, version := range []string{provider.InterfaceV010, provider.InterfaceV011} {
		t.Run(version, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "sim.toml")
			content := fmt.Sprintf("state_dir = %q\nboot_delay = \"10ms\"\n", filepath.Join(dir, "state"))
			if err := os.WriteFile(cfg, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			providertest.Run(t, providertest.Options{
				Executable: exe, ConfigFile: cfg, InterfaceVersion: version,
				Image: "ubuntu:24.04", Flavor: "small",
				ExtraSpecs: json.RawMessage(`{"failure_rate":0}`),
			})
		})
	}
}

package userdata

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/provider"
)

// specSeeds are extra specs in the shapes pools carry, and broken ones.
func specSeeds() []string {
	tmpl := base64.StdEncoding.EncodeToString([]byte(`#!/bin/bash
echo {{.Name}} {{.MetadataURL}} {{index .ExtraContext "k"}}`))
	return []string{
		`{"runner_install_template":"` + tmpl + `","extra_context":{"k":"v"},"pre_install_scripts":{"01-a":"ZWNobw=="},
		"disable_updates":true,"extra_packages":["jq","git"],"enable_boot_debug":true}`,
		`{"runner_install_template":"` + base64.StdEncoding.EncodeToString([]byte(`{{.Nope}}`)) + `"}`,
		`{"runner_install_template":"` + base64.StdEncoding.EncodeToString([]byte(`{{if}}`)) + `"}`,
		`{"runner_install_template":"!!"}`, `{"pre_install_scripts":{"../x":"YQ=="}}`, `{"pre_install_scripts":{"a":"!"}}`,
		`{"extra_packages":["-rf"]}`, `{"unknown":1}`, `{} {}`, `[]`, `"s"`, `null`, ``, `{"cpus":2,"memory_mib":512}`,
		`{"cpus":-1}`, `{"boot_delay":"1s","failure_rate":0.5,"hang":false}`, `{"failure_rate":2}`,
	}
}

// FuzzSpec: a pool's extra specs reach the provider from the manager. Decoding and
// validating never panic and refuse only with ErrInvalidSpec; valid specs survive a
// round trip, and rendering their install template (base64 text/template source) never
// panics and fails only with ErrInvalidSpec.
func FuzzSpec(f *testing.F) {
	for _, s := range specSeeds() {
		f.Add([]byte(s))
	}
	bi := provider.BootstrapInstance{Name: "garm-x", MetadataURL: "https://m", CallbackURL: "https://c", InstanceToken: "t",
		OSType: "linux", OSArch: "amd64"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var s Spec
		err := DecodeStrict(raw, &s)
		if err == nil {
			err = s.Validate()
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("error %v is not ErrInvalidSpec", err)
			}
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var again Spec
		if err := DecodeStrict(out, &again); err != nil || !reflect.DeepEqual(normalized(again), normalized(s)) {
			t.Fatalf("round trip of %q: %+v %v", raw, again, err)
		}
		script, err := InstallScript(bi, s)
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("render error %v is not ErrInvalidSpec", err)
			}
			return
		}
		if len(script) > MaxInstallScriptBytes {
			t.Fatalf("script of %d bytes", len(script))
		}
		if s.RunnerInstallTemplate == "" && !strings.Contains(string(script), bi.MetadataURL) {
			t.Fatalf("default script does not fetch from the metadata URL:\n%s", script)
		}
	})
}

// normalized makes nil and empty maps and slices equal, as JSON does.
func normalized(s Spec) Spec {
	if len(s.ExtraContext) == 0 {
		s.ExtraContext = nil
	}
	if len(s.PreInstallScripts) == 0 {
		s.PreInstallScripts = nil
	}
	if len(s.ExtraPackages) == 0 {
		s.ExtraPackages = nil
	}
	return s
}

// TestInstallTemplateOutputIsBounded: a template that loops over a large number fails
// with ErrInvalidSpec instead of rendering gigabytes.
func TestInstallTemplateOutputIsBounded(t *testing.T) {
	src := base64.StdEncoding.EncodeToString([]byte(`{{range 100000000}}0123456789{{end}}`))
	_, err := InstallScript(provider.BootstrapInstance{Name: "x"}, Spec{RunnerInstallTemplate: src})
	if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("err %v, want the size bound", err)
	}
}

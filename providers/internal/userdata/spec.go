package userdata

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"text/template"
)

// ErrInvalidSpec marks extra specs that fail validation.
var ErrInvalidSpec = errors.New("invalid extra specs")

// Spec holds the common extra-specs keys (provider-contract.md §11).
type Spec struct {
	// RunnerInstallTemplate is base64 text/template source of the install
	// script; the manager injects its bootstrap wrapper here.
	RunnerInstallTemplate string `json:"runner_install_template,omitempty"`
	// ExtraContext is exposed to the template as .ExtraContext.
	ExtraContext map[string]string `json:"extra_context,omitempty"`
	// PreInstallScripts maps a file name to base64 script content, run as
	// root in lexical order of names before the install script.
	PreInstallScripts map[string]string `json:"pre_install_scripts,omitempty"`
	// DisableUpdates turns off the package upgrade and the default packages.
	DisableUpdates bool `json:"disable_updates,omitempty"`
	// ExtraPackages are installed in addition to the default packages.
	ExtraPackages []string `json:"extra_packages,omitempty"`
	// EnableBootDebug sets .EnableBootDebug for the template.
	EnableBootDebug bool `json:"enable_boot_debug,omitempty"`
}

var (
	scriptName  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	packageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+:=~_-]*$`)
)

// Validate checks encodings, names and that the template parses.
func (s Spec) Validate() error {
	if _, err := s.template(); err != nil {
		return err
	}
	for _, name := range s.scriptNames() {
		if !scriptName.MatchString(name) {
			return fmt.Errorf("%w: pre_install_scripts: bad script name %q", ErrInvalidSpec, name)
		}
		if _, err := base64.StdEncoding.DecodeString(s.PreInstallScripts[name]); err != nil {
			return fmt.Errorf("%w: pre_install_scripts[%q] is not base64: %w", ErrInvalidSpec, name, err)
		}
	}
	for _, p := range s.ExtraPackages {
		if !packageName.MatchString(p) {
			return fmt.Errorf("%w: extra_packages: bad package name %q", ErrInvalidSpec, p)
		}
	}
	return nil
}

// template decodes and parses the install template; nil when unset.
func (s Spec) template() (*template.Template, error) {
	if s.RunnerInstallTemplate == "" {
		return nil, nil
	}
	src, err := base64.StdEncoding.DecodeString(s.RunnerInstallTemplate)
	if err != nil {
		return nil, fmt.Errorf("%w: runner_install_template is not base64: %w", ErrInvalidSpec, err)
	}
	t, err := template.New("runner_install_template").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("%w: runner_install_template: %w", ErrInvalidSpec, err)
	}
	return t, nil
}

// scriptNames returns the pre-install script names in lexical order.
func (s Spec) scriptNames() []string {
	names := make([]string, 0, len(s.PreInstallScripts))
	for n := range s.PreInstallScripts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Packages returns the packages to install: curl and tar plus the extra
// packages (de-duplicated), or only the extra packages with DisableUpdates.
func (s Spec) Packages() []string {
	var out []string
	if !s.DisableUpdates {
		out = []string{"curl", "tar"}
	}
	for _, p := range s.ExtraPackages {
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// contains reports whether list holds v.
func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// SchemaProperties returns the JSON-schema "properties" of the common keys,
// for providers to merge into their closed extra-specs schema.
func SchemaProperties() map[string]any {
	str := map[string]any{"type": "string"}
	return map[string]any{
		"runner_install_template": map[string]any{"type": "string", "contentEncoding": "base64",
			"description": "base64 Go text/template of the runner install script"},
		"extra_context": map[string]any{"type": "object", "additionalProperties": str,
			"description": "values exposed to the template as .ExtraContext"},
		"pre_install_scripts": map[string]any{"type": "object",
			"propertyNames":        map[string]any{"pattern": scriptName.String()},
			"additionalProperties": map[string]any{"type": "string", "contentEncoding": "base64"},
			"description":          "file name to base64 script, run as root before the install script"},
		"disable_updates": map[string]any{"type": "boolean",
			"description": "no package upgrade on boot and no default packages"},
		"extra_packages": map[string]any{"type": "array",
			"items": map[string]any{"type": "string", "pattern": packageName.String()}},
		"enable_boot_debug": map[string]any{"type": "boolean"},
	}
}

package bootstrap

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"text/template"
)

// MaxScriptBytes bounds a rendered install script.
const MaxScriptBytes = 4 << 20

// errTooLarge stops a render whose output passed MaxScriptBytes.
var errTooLarge = fmt.Errorf("the rendered script is larger than %d bytes", MaxScriptBytes)

// limitedBuffer is a bytes.Buffer that refuses to grow past max.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.buf.Len()+len(p) > l.max {
		return 0, errTooLarge
	}
	return l.buf.Write(p)
}

// parseTemplate parses a runner install template with the functions templates may use.
func parseTemplate(data []byte) (*template.Template, error) {
	return template.New(templateName).Funcs(quoteFuncs).Parse(string(data))
}

// templateName names parsed user and stored templates in error messages.
const templateName = "runner_install_template"

// InstallContext is what an install script template is rendered against
// (instance-api.md §6). The field names are part of the contract: user templates given as
// extra_specs.runner_install_template reference them.
type InstallContext struct {
	// Forge is the forge type of the runner's entity, "github" or "gitea" (a garrison
	// addition: the system templates serve both forges from one script).
	Forge             string
	FileName          string // runner archive file name
	DownloadURL       string // runner archive URL
	TempDownloadToken string // bearer token for DownloadURL, "" if none
	RunnerUsername    string // "runner"
	RunnerGroup       string // "runner"
	RepoURL           string // URL the runner registers against
	MetadataURL       string
	CallbackURL       string
	CallbackToken     string // the instance JWT
	RunnerName        string
	RunnerLabels      string // comma-joined; empty with JIT
	CABundle          string // forge endpoint CA bundle, PEM
	GitHubRunnerGroup string
	EnableBootDebug   bool
	ExtraContext      map[string]string // never nil after Normalize
	UseJITConfig      bool

	AgentMode              bool
	AgentDownloadURL       string
	AgentURL               string
	AgentToken             string
	AgentShell             string // "true" or "false"
	ForceInsecureGARMAgent bool

	HTTPProxy  string
	HTTPSProxy string
	NoProxy    string
}

// Normalize fills the defaults a template may rely on: runner user and group "runner",
// a non-nil ExtraContext and AgentShell "false".
func (c *InstallContext) Normalize() {
	if c.RunnerUsername == "" {
		c.RunnerUsername = "runner"
	}
	if c.RunnerGroup == "" {
		c.RunnerGroup = "runner"
	}
	if c.ExtraContext == nil {
		c.ExtraContext = map[string]string{}
	}
	if c.AgentShell == "" {
		c.AgentShell = "false"
	}
}

// Install script errors.
var (
	// ErrNoTemplate: there is no built-in script for the forge type and OS.
	ErrNoTemplate = errors.New("bootstrap: no install script template")
	// ErrRender: a template failed to parse or execute.
	ErrRender = errors.New("bootstrap: rendering install template")
)

// Forge types and OS types the built-in scripts know.
const (
	ForgeGitHub = "github"
	ForgeGitea  = "gitea"
	OSLinux     = "linux"
	OSWindows   = "windows"
)

// installTemplates maps an OS type to its built-in install script (installFiles); the
// forge type selects the branches inside.
var installTemplates = templatesByOS(installFiles)

// InstallScript renders the built-in install script for forgeType (github, gitea) and
// osType (linux, windows). ErrNoTemplate for other combinations.
func InstallScript(forgeType, osType string, c InstallContext) ([]byte, error) {
	t, ok := installTemplates()[osType]
	if !ok || (forgeType != ForgeGitHub && forgeType != ForgeGitea) {
		return nil, fmt.Errorf("%w for %s/%s", ErrNoTemplate, forgeType, osType)
	}
	c.Forge = forgeType
	return execute(t, c)
}

// RenderTemplate renders a stored or user template against c with text/template
// semantics (instance-api.md §6 S-2). Besides the standard functions, templates may use
// sh and ps, which quote a value as one POSIX shell word and one PowerShell string (a
// garrison addition the system templates use). Rendering stops with ErrRender when the
// script grows past MaxScriptBytes.
func RenderTemplate(tmpl []byte, c InstallContext) ([]byte, error) {
	t, err := parseTemplate(tmpl)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRender, err)
	}
	return execute(t, c)
}

// execute renders t against c, normalized; for Gitea, JIT is always off (Gitea has no
// JIT runners).
func execute(t *template.Template, c InstallContext) ([]byte, error) {
	out, err := executeRaw(t, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRender, err)
	}
	return out, nil
}

// executeRaw is execute with text/template's error as it is.
func executeRaw(t *template.Template, c InstallContext) ([]byte, error) {
	c.Normalize()
	if c.Forge == ForgeGitea {
		c.UseJITConfig = false
	}
	w := &limitedBuffer{max: MaxScriptBytes}
	if err := t.Execute(w, c); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// ExtraSpecs are the keys of a pool's extra specs the manager reads itself
// (provider-contract.md §11).
type ExtraSpecs struct {
	Template        []byte            // decoded runner_install_template; nil if absent or empty
	ExtraContext    map[string]string // extra_context
	EnableBootDebug bool              // enable_boot_debug; only a JSON true counts
}

// ParseExtraSpecs reads the manager's keys from raw extra specs. Absent specs, null and
// non-objects yield zero ExtraSpecs. A runner_install_template that is not a base64 string
// or an extra_context that is not a string map give ErrInvalidExtraSpecs. A non-bool
// enable_boot_debug counts as false.
func ParseExtraSpecs(raw json.RawMessage) (ExtraSpecs, error) {
	var out ExtraSpecs
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && !json.Valid(trimmed) {
			return out, ErrInvalidExtraSpecs
		}
		return out, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return out, fmt.Errorf("%w: %w", ErrInvalidExtraSpecs, err)
	}
	if v, ok := obj[TemplateKey]; ok {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return out, fmt.Errorf("%w: %s is not a string", ErrInvalidExtraSpecs, TemplateKey)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return out, fmt.Errorf("%w: %s is not base64", ErrInvalidExtraSpecs, TemplateKey)
		}
		if len(b) > 0 {
			out.Template = b
		}
	}
	if v, ok := obj["extra_context"]; ok {
		if err := json.Unmarshal(v, &out.ExtraContext); err != nil {
			return out, fmt.Errorf("%w: extra_context is not an object of strings", ErrInvalidExtraSpecs)
		}
	}
	if v, ok := obj["enable_boot_debug"]; ok {
		_ = json.Unmarshal(v, &out.EnableBootDebug) // I-2: anything but a bool is false
	}
	return out, nil
}

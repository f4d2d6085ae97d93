package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison/provider"
)

// ErrNoTools is returned when no runner download matches the instance.
var ErrNoTools = errors.New("no runner download matches the instance's OS and architecture")

// InstallParams is the context the install template is rendered with; the
// field names are part of the contract (instance-api.md §6).
type InstallParams struct {
	FileName          string
	DownloadURL       string
	TempDownloadToken string
	RunnerUsername    string
	RunnerGroup       string
	RepoURL           string
	MetadataURL       string
	CallbackURL       string
	CallbackToken     string
	RunnerName        string
	RunnerLabels      string
	CABundle          string
	GitHubRunnerGroup string
	EnableBootDebug   bool
	ExtraContext      map[string]string
	UseJITConfig      bool
}

// RunnerUser is the account the install script runs as.
const RunnerUser = "runner"

// Params builds the template context for bi.
func Params(bi provider.BootstrapInstance, s Spec) InstallParams {
	p := InstallParams{
		RunnerUsername: RunnerUser, RunnerGroup: RunnerUser,
		RepoURL: bi.RepoURL, MetadataURL: bi.MetadataURL, CallbackURL: bi.CallbackURL,
		CallbackToken: bi.InstanceToken, RunnerName: bi.Name,
		RunnerLabels: strings.Join(bi.Labels, ","), CABundle: string(bi.CACertBundle),
		GitHubRunnerGroup: bi.GitHubRunnerGroup, EnableBootDebug: s.EnableBootDebug,
		ExtraContext: s.ExtraContext, UseJITConfig: bi.JitConfigEnabled,
	}
	if p.ExtraContext == nil {
		p.ExtraContext = map[string]string{}
	}
	if t, ok := MatchTools(bi.Tools, bi.OSType, bi.OSArch); ok {
		p.FileName, p.DownloadURL, p.TempDownloadToken = t.Filename, t.DownloadURL, t.TempDownloadToken
	}
	return p
}

// MatchTools returns the runner download for osType and arch: an entry
// matches when its os and architecture equal either the GitHub or the
// garrison spelling (linux/linux, windows/win; amd64/x64, arm, arm64).
func MatchTools(tools []provider.RunnerApplicationDownload, osType, arch string) (provider.RunnerApplicationDownload, bool) {
	ghOS := map[string]string{"linux": "linux", "windows": "win"}[osType]
	ghArch := map[string]string{"amd64": "x64", "arm": "arm", "arm64": "arm64"}[arch]
	for _, t := range tools {
		osOK := t.OS == osType || (ghOS != "" && t.OS == ghOS)
		archOK := t.Architecture == arch || (ghArch != "" && t.Architecture == ghArch)
		if osOK && archOK {
			return t, true
		}
	}
	return provider.RunnerApplicationDownload{}, false
}

// InstallScript renders the runner install script: runner_install_template
// when set, else a default script that fetches and runs the install script
// from the metadata service.
func InstallScript(bi provider.BootstrapInstance, s Spec) ([]byte, error) {
	t, err := s.template()
	if err != nil {
		return nil, err
	}
	if t == nil {
		return defaultScript(bi), nil
	}
	buf := cappedBuffer{max: MaxInstallScriptBytes}
	if err := t.Execute(&buf, Params(bi, s)); err != nil {
		return nil, fmt.Errorf("%w: rendering runner_install_template: %w", ErrInvalidSpec, err)
	}
	return buf.Bytes(), nil
}

// MaxInstallScriptBytes bounds a rendered install script: a template that writes more
// (a loop over a large number) fails instead of filling the provider's memory.
const MaxInstallScriptBytes = 4 << 20

// cappedBuffer is a bytes.Buffer that refuses to grow beyond max bytes.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, fmt.Errorf("the rendered script exceeds %d bytes", b.max)
	}
	return b.Buffer.Write(p)
}

// defaultScript downloads <metadata-url>/install-script/ with the instance
// token and runs it; it reports failure to the callback URL.
func defaultScript(bi provider.BootstrapInstance) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/bash\nset -eo pipefail\n")
	fmt.Fprintf(&b, "METADATA_URL=%s\nCALLBACK_URL=%s\nTOKEN=%s\n",
		ShellQuote(strings.TrimSuffix(bi.MetadataURL, "/")), ShellQuote(strings.TrimSuffix(bi.CallbackURL, "/")),
		ShellQuote(bi.InstanceToken))
	b.WriteString(`script=$(mktemp)
if ! curl -fsSL -H "Authorization: Bearer $TOKEN" -o "$script" "$METADATA_URL/install-script/"; then
	curl -fsS -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
		-d '{"status":"failed","message":"could not fetch the install script"}' "$CALLBACK_URL/status" || true
	exit 1
fi
exec bash "$script"
`)
	return []byte(b.String())
}

// ShellQuote quotes s as one POSIX shell word.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

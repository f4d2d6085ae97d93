package userdata

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison/provider"
)

// Header is the first line of a cloud-config document.
const Header = "#cloud-config\n"

// Paths used inside the instance.
const (
	InstallScriptPath = "/install_runner.sh"
	PreInstallDir     = "/garm-pre-install"
)

// runnerGroups are the runner user's groups (cloud-init creates the
// missing ones).
const runnerGroups = "sudo,adm,cdrom,dialout,dip,video,plugdev,netdev,docker,lxd"

// cloudConfig is the user-data document; JSON is valid YAML, so it is
// written as JSON after the #cloud-config header. Field order is kept.
type cloudConfig struct {
	PackageUpgrade bool        `json:"package_upgrade"`
	Packages       []string    `json:"packages"`
	Users          []any       `json:"users"`
	BootCmd        []string    `json:"bootcmd,omitempty"`
	CACerts        *caCerts    `json:"ca_certs,omitempty"`
	WriteFiles     []writeFile `json:"write_files"`
	RunCmd         []string    `json:"runcmd"`
}

type runnerUser struct {
	Name              string   `json:"name"`
	HomeDir           string   `json:"homedir"`
	Shell             string   `json:"shell"`
	Groups            string   `json:"groups"`
	Sudo              string   `json:"sudo"`
	SSHAuthorizedKeys []string `json:"ssh_authorized_keys,omitempty"`
}

type caCerts struct {
	Trusted []string `json:"trusted"`
}

type writeFile struct {
	Path        string `json:"path"`
	Owner       string `json:"owner"`
	Permissions string `json:"permissions"`
	Encoding    string `json:"encoding"`
	Content     string `json:"content"`
}

// CloudConfig returns the cloud-init user-data for a Linux instance:
// packages, the runner user with the ssh keys, the CA bundle, the
// pre-install scripts and the rendered install script, run in that order.
func CloudConfig(bi provider.BootstrapInstance, s Spec) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	script, err := InstallScript(bi, s)
	if err != nil {
		return nil, err
	}
	certs, err := SplitCABundle(bi.CACertBundle)
	if err != nil {
		return nil, err
	}
	cc := cloudConfig{
		PackageUpgrade: !s.DisableUpdates,
		Packages:       nonNil(s.Packages()),
		Users: []any{"default", runnerUser{Name: RunnerUser, HomeDir: "/home/" + RunnerUser, Shell: "/bin/bash",
			Groups: runnerGroups, Sudo: "ALL=(ALL) NOPASSWD:ALL", SSHAuthorizedKeys: bi.SSHKeys}},
		BootCmd: proxyBootCmd(bi.ProxyConfig),
	}
	if len(certs) > 0 {
		cc.CACerts = &caCerts{Trusted: certs}
	}
	for _, name := range s.scriptNames() {
		path := PreInstallDir + "/" + name
		cc.WriteFiles = append(cc.WriteFiles, file(path, s.PreInstallScripts[name]))
		cc.RunCmd = append(cc.RunCmd, path)
	}
	cc.WriteFiles = append(cc.WriteFiles, file(InstallScriptPath, base64.StdEncoding.EncodeToString(script)))
	cc.RunCmd = append(cc.RunCmd, "rm -rf "+PreInstallDir,
		"su -l -c "+InstallScriptPath+" "+RunnerUser, "rm -f "+InstallScriptPath)
	body, err := json.MarshalIndent(cc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(Header), append(body, '\n')...), nil
}

// file is a root-owned executable file with base64 content.
func file(path, b64 string) writeFile {
	return writeFile{Path: path, Owner: "root:root", Permissions: "0755", Encoding: "b64", Content: b64}
}

// nonNil turns a nil list into an empty one (cloud-init wants a list).
func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// SplitCABundle parses a PEM bundle and returns each certificate as PEM;
// anything that is not a parseable certificate is an error.
func SplitCABundle(bundle []byte) ([]string, error) {
	var out []string
	rest := bundle
	for len(strings.TrimSpace(string(rest))) > 0 {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, fmt.Errorf("%w: ca-cert-bundle holds data that is not PEM", ErrInvalidSpec)
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%w: ca-cert-bundle holds a %q block", ErrInvalidSpec, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, fmt.Errorf("%w: ca-cert-bundle: %w", ErrInvalidSpec, err)
		}
		out = append(out, string(pem.EncodeToMemory(block)))
	}
	return out, nil
}

// proxyBootCmd writes the apt proxy settings when the pool has a proxy.
func proxyBootCmd(p provider.ProxyConfig) []string {
	if p.HTTPProxy == "" && p.HTTPSProxy == "" {
		return nil
	}
	var conf strings.Builder
	if p.HTTPProxy != "" {
		fmt.Fprintf(&conf, "Acquire::http::Proxy \"%s\";\n", p.HTTPProxy)
	}
	if p.HTTPSProxy != "" {
		fmt.Fprintf(&conf, "Acquire::https::Proxy \"%s\";\n", p.HTTPSProxy)
	}
	return []string{"if [ -d /etc/apt/apt.conf.d ]; then printf '%s' " + ShellQuote(conf.String()) +
		" > /etc/apt/apt.conf.d/95-garrison-proxy; fi"}
}

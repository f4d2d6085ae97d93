package userdata

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison/provider"
)

// DoneMarker exists in an instance once its entry script has run, so a
// restarted container does not run the install again.
const DoneMarker = "/var/lib/garrison/userdata.done"

// ShellScript returns a bash script doing what CloudConfig does, for
// containers without cloud-init: create the runner user, trust the CA
// bundle, install extra packages (best effort), run the pre-install scripts
// as root and the install script as the runner user. Default packages and
// upgrades are left to the image. It runs once (DoneMarker).
func ShellScript(bi provider.BootstrapInstance, s Spec) ([]byte, error) {
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
	var b strings.Builder
	b.WriteString("#!/bin/bash\n# garrison entry script\nset -u\n")
	fmt.Fprintf(&b, "[ -e %s ] && exit 0\nmkdir -p %s\n", DoneMarker, dirOf(DoneMarker))
	writeUser(&b)
	writeCerts(&b, certs)
	if len(s.ExtraPackages) > 0 {
		fmt.Fprintf(&b, "(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q %s) || echo 'garrison: installing extra packages failed' >&2\n",
			strings.Join(s.ExtraPackages, " "))
	}
	for _, name := range s.scriptNames() {
		writeFileCmd(&b, PreInstallDir+"/"+name, s.PreInstallScripts[name])
		fmt.Fprintf(&b, "%s\n", ShellQuote(PreInstallDir+"/"+name))
	}
	fmt.Fprintf(&b, "rm -rf %s\n", PreInstallDir)
	writeFileCmd(&b, InstallScriptPath, base64.StdEncoding.EncodeToString(script))
	fmt.Fprintf(&b, "touch %s\nsu -l -c %s %s\nrc=$?\nrm -f %s\nexit $rc\n",
		DoneMarker, InstallScriptPath, RunnerUser, InstallScriptPath)
	return []byte(b.String()), nil
}

// writeUser creates the runner user with passwordless sudo.
func writeUser(b *strings.Builder) {
	fmt.Fprintf(b, "id %[1]s >/dev/null 2>&1 || useradd -m -d /home/%[1]s -s /bin/bash %[1]s\n", RunnerUser)
	fmt.Fprintf(b, "for g in sudo adm docker; do getent group $g >/dev/null && usermod -aG $g %s; done\n", RunnerUser)
	fmt.Fprintf(b, "if [ -d /etc/sudoers.d ]; then echo '%s ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/90-garrison-runner; chmod 440 /etc/sudoers.d/90-garrison-runner; fi\n", RunnerUser)
}

// writeCerts adds each certificate to the system trust store.
func writeCerts(b *strings.Builder, certs []string) {
	if len(certs) == 0 {
		return
	}
	b.WriteString("mkdir -p /usr/local/share/ca-certificates\n")
	for i, c := range certs {
		fmt.Fprintf(b, "printf '%%s' %s | base64 -d > /usr/local/share/ca-certificates/garrison-%d.crt\n",
			ShellQuote(base64.StdEncoding.EncodeToString([]byte(c))), i)
	}
	b.WriteString("command -v update-ca-certificates >/dev/null && update-ca-certificates >/dev/null\n")
}

// writeFileCmd writes base64 content to path as a root-owned executable.
func writeFileCmd(b *strings.Builder, path, b64 string) {
	fmt.Fprintf(b, "mkdir -p %s && printf '%%s' %s | base64 -d > %s && chmod 755 %s\n",
		ShellQuote(dirOf(path)), ShellQuote(b64), ShellQuote(path), ShellQuote(path))
}

// dirOf returns the directory part of an absolute path.
func dirOf(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/"
	}
	return path[:i]
}

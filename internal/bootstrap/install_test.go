package bootstrap

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func testContext(jit bool) InstallContext {
	return InstallContext{
		FileName: "actions-runner-linux-x64.tar.gz", DownloadURL: "https://dl.example/runner.tar.gz", TempDownloadToken: "dl'tok",
		RepoURL: "https://ghe.example/acme/widgets", MetadataURL: "http://127.0.0.1:1/api/v1/metadata",
		CallbackURL: "http://127.0.0.1:1/api/v1/callbacks", CallbackToken: "jwt-token", RunnerName: "garm-abc",
		RunnerLabels: "linux,x64", GitHubRunnerGroup: "group 1", UseJITConfig: jit,
		HTTPProxy: "http://proxy:3128", NoProxy: "localhost",
	}
}

func TestInstallScriptRenders(t *testing.T) {
	for _, forge := range []string{ForgeGitHub, ForgeGitea} {
		for _, osType := range []string{OSLinux, OSWindows} {
			for _, jit := range []bool{false, true} {
				for _, debug := range []bool{false, true} {
					c := testContext(jit)
					c.EnableBootDebug = debug
					s, err := InstallScript(forge, osType, c)
					if err != nil {
						t.Fatalf("%s/%s: %v", forge, osType, err)
					}
					checkInstallScript(t, forge, osType, jit, debug, s)
				}
			}
		}
	}
}

// checkInstallScript checks the parts of a rendered script that matter per variant.
func checkInstallScript(t *testing.T, forge, osType string, jit, debug bool, s []byte) {
	t.Helper()
	want := []string{"jwt-token", "http://127.0.0.1:1/api/v1/metadata", "garm-abc", "https://dl.example/runner.tar.gz", "runner-registration-token/"}
	if osType == OSLinux {
		bashSyntax(t, s)
		want = append(want, "GARRISON_RUNNER_HOME", "set -eE")
		if !bytes.HasPrefix(s, []byte("#!/bin/bash\n")) {
			t.Fatal("no bash shebang")
		}
		if got := bytes.Contains(s, []byte("\nset -x\n")); got != debug {
			t.Fatalf("set -x present=%v with debug=%v", got, debug)
		}
	} else if !bytes.HasPrefix(s, []byte("#ps1_sysnative\n")) {
		t.Fatal("no #ps1_sysnative header")
	}
	if forge == ForgeGitea {
		want = append(want, "gitea-runner", "register --ephemeral --no-interactive")
	} else {
		want = append(want, "config", "credentials_rsaparams")
	}
	for _, w := range want {
		if !bytes.Contains(s, []byte(w)) {
			t.Errorf("%s/%s jit=%v: script lacks %q", forge, osType, jit, w)
		}
	}
	jitOn := bytes.Contains(s, []byte("USE_JIT=1")) || bytes.Contains(s, []byte("$UseJIT = $true"))
	if jitOn != (jit && forge == ForgeGitHub) {
		t.Errorf("%s/%s: JIT flag %v, want %v", forge, osType, jitOn, jit && forge == ForgeGitHub)
	}
}

func TestInstallScriptUnknown(t *testing.T) {
	for _, c := range [][2]string{{"gitlab", OSLinux}, {ForgeGitHub, "darwin"}} {
		if _, err := InstallScript(c[0], c[1], testContext(false)); !errors.Is(err, ErrNoTemplate) {
			t.Fatalf("%v: %v", c, err)
		}
	}
}

func TestRenderTemplate(t *testing.T) {
	tmpl := `{{ .RunnerName }} {{ .CallbackToken }} {{ .RunnerUsername }}:{{ .RunnerGroup }} [{{ index .ExtraContext "missing" }}] {{ .UseJITConfig }} {{ .AgentShell }}`
	got, err := RenderTemplate([]byte(tmpl), testContext(true))
	if err != nil || string(got) != "garm-abc jwt-token runner:runner [] true false" {
		t.Fatalf("%q %v", got, err)
	}
	// sh and ps quote for bash and PowerShell (a garrison addition the system templates use).
	got, err = RenderTemplate([]byte(`{{ sh .TempDownloadToken }} {{ ps .TempDownloadToken }}`), testContext(false))
	if err != nil || string(got) != `'dl'\''tok' 'dl''tok'` {
		t.Fatalf("quoting: %q %v", got, err)
	}
	for _, bad := range []string{"{{ .Nope }}", "{{ shout .RunnerName }}", "{{ if }}"} {
		if _, err := RenderTemplate([]byte(bad), testContext(false)); !errors.Is(err, ErrRender) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func TestParseExtraSpecs(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("tmpl"))
	tests := []struct {
		name, in string
		want     ExtraSpecs
		err      bool
	}{
		{name: "absent"},
		{name: "null", in: "null"},
		{name: "array", in: "[1]"},
		{name: "all", in: `{"runner_install_template":"` + b64 + `","extra_context":{"a":"b"},"enable_boot_debug":true}`,
			want: ExtraSpecs{Template: []byte("tmpl"), ExtraContext: map[string]string{"a": "b"}, EnableBootDebug: true}},
		{name: "debug as string", in: `{"enable_boot_debug":"true"}`},
		{name: "empty template", in: `{"runner_install_template":""}`},
		{name: "template not base64", in: `{"runner_install_template":"%%"}`, err: true},
		{name: "template not string", in: `{"runner_install_template":1}`, err: true},
		{name: "extra_context not map", in: `{"extra_context":[1]}`, err: true},
		{name: "invalid", in: `{`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseExtraSpecs(json.RawMessage(tt.in))
			if tt.err {
				if !errors.Is(err, ErrInvalidExtraSpecs) {
					t.Fatalf("err %v", err)
				}
				return
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if err != nil || string(gj) != string(wj) {
				t.Fatalf("got %s %v, want %s", gj, err, wj)
			}
		})
	}
}

func TestQuoting(t *testing.T) {
	c := testContext(false)
	c.RunnerName = `x'; touch /tmp/pwned; echo '`
	s, err := InstallScript(ForgeGitHub, OSLinux, c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s), `RUNNER_NAME='x'\''; touch /tmp/pwned; echo '\'''`) {
		t.Fatal("runner name not shell-quoted")
	}
	w, _ := InstallScript(ForgeGitHub, OSWindows, c)
	if !strings.Contains(string(w), `$RunnerName = 'x''; touch /tmp/pwned; echo '''`) {
		t.Fatal("runner name not PowerShell-quoted")
	}
}

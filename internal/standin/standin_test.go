package standin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fast are run flags that keep tests short.
var fast = []string{"--idle-timeout", "30s", "--job-duration", "10ms"}

func TestRunJIT(t *testing.T) {
	e := newSimEnv(t)
	dir := t.TempDir()
	job := e.queue("self-hosted", "linux")
	e.jit(dir, "jit-1", "self-hosted", "linux", "x64")
	code, out, errOut := runMain(t, append([]string{"run", "--dir", dir}, fast...)...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	e.wantCompleted(job, "jit-1")
	if !strings.Contains(out, "completed with conclusion success") {
		t.Fatalf("log:\n%s", out)
	}
	if len(e.sim.Runners()) != 0 {
		t.Fatalf("ephemeral runner not deleted: %+v", e.sim.Runners())
	}
	// The JIT runner is gone: a second run is refused, not idle.
	if code, _, errOut := runMain(t, append([]string{"run", "--dir", dir}, fast...)...); code != ExitError {
		t.Fatalf("second run exit %d: %s", code, errOut)
	}
}

func TestConfigThenRun(t *testing.T) {
	e := newSimEnv(t)
	dir := t.TempDir()
	job := e.queue("linux", "gpu")
	code, _, errOut := runMain(t, "config", "--unattended", "--url", e.url+"/acme/app", "--token", e.regToken(),
		"--name", "reg-1", "--labels", "linux,gpu", "--no-default-labels", "--ephemeral", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("config exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".runner"))
	if err != nil || !regexp.MustCompile(`"agentId":\s*[0-9]+`).Match(b) {
		t.Fatalf(".runner %s, %v", b, err)
	}
	if code, out, errOut := runMain(t, append([]string{"run", "--dir", dir}, fast...)...); code != ExitOK {
		t.Fatalf("run exit %d\n%s\n%s", code, out, errOut)
	}
	e.wantCompleted(job, "reg-1")
	if code, _, errOut := runMain(t, "config", "remove", "--token", "x", "--dir", dir); code != ExitOK {
		t.Fatalf("config remove exit %d: %s", code, errOut)
	}
	if _, err := LoadGitHub(dir); !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("after remove: %v", err)
	}
}

func TestGiteaRegisterAndDaemon(t *testing.T) {
	e := newSimEnv(t)
	dir := t.TempDir()
	job := e.queue("ubuntu-latest")
	code, _, errOut := runMain(t, "register", "--ephemeral", "--no-interactive", "--instance", e.url+"/api/v1",
		"--token", e.giteaToken(), "--name", "gitea-1", "--labels", "ubuntu-latest:host", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("register exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".runner"))
	if err != nil || !regexp.MustCompile(`"id":\s*[0-9]+`).Match(b) {
		t.Fatalf(".runner %s, %v", b, err)
	}
	if code, out, errOut := runMain(t, append([]string{"daemon", "--once", "--dir", dir}, fast...)...); code != ExitOK {
		t.Fatalf("daemon exit %d\n%s\n%s", code, out, errOut)
	}
	e.wantCompleted(job, "gitea-1")
}

func TestIdleTimeout(t *testing.T) {
	tests := []struct {
		name      string
		jobLabels []string // nil: no job at all
	}{
		{"no job", nil},
		{"labels do not match", []string{"linux", "arm64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSimEnv(t)
			dir := t.TempDir()
			if tt.jobLabels != nil {
				e.queue(tt.jobLabels...)
			}
			e.jit(dir, "idle-1", "linux", "x64")
			code, _, errOut := runMain(t, "run", "--dir", dir, "--idle-timeout", "300ms")
			if code != ExitIdle || !strings.Contains(errOut, "no matching job within 300ms") {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, j := range e.sim.Jobs() {
				if j.Status != "queued" {
					t.Fatalf("job taken: %+v", j)
				}
			}
		})
	}
}

func TestUsageAndConfigErrors(t *testing.T) {
	e := newSimEnv(t)
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"no mode", nil, ExitUsage},
		{"unknown mode", []string{"dance"}, ExitUsage},
		{"config without token", []string{"config", "--url", e.url + "/acme/app", "--name", "n", "--dir", dir}, ExitUsage},
		{"config with bad url", []string{"config", "--url", "ftp://x", "--token", "t", "--name", "n", "--dir", dir}, ExitUsage},
		{"unknown flag", []string{"run", "--fly"}, ExitUsage},
		{"bad token", []string{"config", "--url", e.url + "/acme/app", "--token", "nope", "--name", "n", "--labels", "l", "--dir", dir}, ExitError},
		{"run unconfigured", []string{"run", "--dir", dir}, ExitError},
		{"daemon unconfigured", []string{"daemon", "--dir", dir}, ExitError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, _, errOut := runMain(t, tt.args...); code != tt.want {
				t.Fatalf("exit %d, want %d: %s", code, tt.want, errOut)
			}
		})
	}
}

func TestLoadGitHubErrors(t *testing.T) {
	tests := []struct {
		name, runner, creds string
	}{
		{"missing files", "", ""},
		{"no credential", `{"AgentId":"1","AgentName":"n","ServerUrl":"http://h/_sim/"}`, `{"Data":{}}`},
		{"no server", `{"AgentId":"1","AgentName":"n"}`, `{"Data":{"ClientId":"s"}}`},
		{"bad id", `{"AgentId":"x","AgentName":"n","ServerUrl":"http://h/_sim/"}`, `{"Data":{"ClientId":"s"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range map[string]string{".runner": tt.runner, ".credentials": tt.creds} {
				if body != "" {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := LoadGitHub(dir); !errors.Is(err, ErrNotConfigured) {
				t.Fatalf("LoadGitHub: %v", err)
			}
		})
	}
}

func TestLoadGitHubAcceptsBOMAndNumbers(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, ".runner"), []byte("\xef\xbb\xbf{\"agentId\":7,\"agentName\":\"n\",\"serverUrl\":\"http://h/_sim\"}"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, ".credentials"), []byte(`{"scheme":"OAuth","data":{"clientId":"s"}}`), 0o600))
	id, err := LoadGitHub(dir)
	if err != nil || id != (Identity{ID: 7, Name: "n", Secret: "s", SimURL: "http://h/_sim/"}) {
		t.Fatalf("%+v, %v", id, err)
	}
}

func TestWriteJITConfigRejectsPaths(t *testing.T) {
	// {"../x": "eA=="}
	if err := WriteJITConfig(t.TempDir(), "eyIuLi94IjoiZUE9PSJ9"); err == nil {
		t.Fatal("path traversal accepted")
	}
}

func TestTarball(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fake")
	must(t, os.WriteFile(bin, []byte("#!/bin/true\n"), 0o755))
	b, err := Tarball(bin)
	must(t, err)
	gz, err := gzip.NewReader(bytes.NewReader(b))
	must(t, err)
	tr := tar.NewReader(gz)
	got := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		must(t, err)
		if h.Typeflag == tar.TypeReg && h.Mode&0o111 == 0 {
			t.Fatalf("%s is not executable", h.Name)
		}
		got[h.Name] = true
	}
	for _, want := range append(shimNames(), BinaryName) {
		if !got[want] {
			t.Fatalf("archive lacks %s: %v", want, got)
		}
	}
	if _, err := Tarball(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing binary accepted")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

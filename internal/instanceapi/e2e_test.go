package instanceapi

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/provider"
)

// Stand-in runners: they record their arguments and write the files the install script
// reads (.runner with the agent id) or that the test waits for (started).
const (
	fakeConfigSh = `#!/bin/bash
d=$(cd "$(dirname "$0")" && pwd)
[ "$1" = remove ] && exit 0
echo "$@" >"$d/config.args"
printf '{"agentId": 42, "agentName": "x"}' >"$d/.runner"
`
	fakeRunSh = `#!/bin/bash
d=$(cd "$(dirname "$0")" && pwd)
echo started >"$d/started"
`
	fakeGiteaRunner = `#!/bin/bash
d=$(cd "$(dirname "$0")" && pwd)
case "$1" in
register) echo "$@" >"$d/register.args"; printf '{"id": 7, "name": "x"}' >"$d/.runner" ;;
daemon) echo started >"$d/started" ;;
esac
`
)

// runnerTarball is a gzipped tar of the stand-in GitHub runner.
func runnerTarball(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{"config.sh": fakeConfigSh, "run.sh": fakeRunSh} {
		must(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(body))
		must(t, err)
	}
	must(t, tw.Close())
	must(t, gz.Close())
	return buf.Bytes()
}

// downloadServer serves the runner download, requiring the temp download token.
func downloadServer(t *testing.T, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer dl-token" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// runBootstrap renders the wrapper for inst/tok and runs it unprivileged in a throwaway
// runner home, returning that home.
func (e *env) runBootstrap(inst garrison.Instance, tok string) string {
	t := e.t
	t.Helper()
	w, err := bootstrap.Wrapper("linux", bootstrap.WrapperParams{MetadataURL: inst.MetadataURL, CallbackURL: inst.CallbackURL,
		InstanceToken: tok, NoProxy: "127.0.0.1"})
	must(t, err)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	must(t, os.WriteFile(filepath.Join(dir, "install_runner.sh"), w, 0o700))
	cmd := exec.CommandContext(t.Context(), "bash", filepath.Join(dir, "install_runner.sh"))
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "GARRISON_RUNNER_HOME="+home, "GARRISON_NO_SYSTEMD=1",
		"GARRISON_RUNNER_CACHE="+filepath.Join(dir, "no-cache"), "GARRISON_RETRY_DELAY=0", "TMPDIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bootstrap failed: %v\n%s", err, out)
	}
	waitFile(t, filepath.Join(home, "started"))
	return home
}

// waitFile waits until path exists (the runner runs in the background).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%s never appeared", path)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}

// wantInstalled checks the instance reported idle with agentID after the usual messages.
func (e *env) wantInstalled(name string, agentID int64) garrison.Instance {
	t := e.t
	t.Helper()
	i := e.instance(name)
	if i.RunnerStatus != garrison.RunnerIdle || i.AgentID != agentID {
		t.Fatalf("runner %s agent %d, want idle %d; messages %+v", i.RunnerStatus, i.AgentID, agentID, i.StatusMessages)
	}
	last := i.StatusMessages[len(i.StatusMessages)-1]
	if last.Message != "runner successfully installed" {
		t.Fatalf("last message %+v", last)
	}
	if _, err := os.Stat("/etc/os-release"); err == nil && i.OSName == "" {
		t.Fatal("system-info not reported")
	}
	return i
}

func TestBootstrapGitHub(t *testing.T) {
	e := newEnv(t, envConfig{})
	dl := downloadServer(t, runnerTarball(t))
	e.forge.tools = []provider.RunnerApplicationDownload{{OS: "linux", Architecture: "x64",
		DownloadURL: dl.URL + "/actions-runner.tar.gz", Filename: "actions-runner-linux-x64.tar.gz", TempDownloadToken: "dl-token"}}
	inst, tok := e.addInstance("garm-e2e", nil)
	home := e.runBootstrap(inst, tok)
	args := readFile(t, filepath.Join(home, "config.args"))
	want := "--unattended --url https://ghe.example/acme/widgets --token reg-token-1 --name garm-e2e --labels linux,x64,runner-controller-id=" +
		e.ctrl.ID + ",runner-pool-id=" + e.pool.ID + " --no-default-labels --ephemeral\n"
	if args != want {
		t.Fatalf("config.sh args %q\nwant %q", args, want)
	}
	if i := e.wantInstalled("garm-e2e", 42); !i.TokenFetched {
		t.Fatal("token_fetched not set")
	}
	e.do("GET", mdPath, tok, "").wantAuthFailed(t) // dead after idle
}

func TestBootstrapGitHubJIT(t *testing.T) {
	e := newEnv(t, envConfig{})
	dl := downloadServer(t, runnerTarball(t))
	e.forge.tools = []provider.RunnerApplicationDownload{{OS: "linux", Architecture: "x64",
		DownloadURL: dl.URL + "/r.tgz", Filename: "r.tar.gz", TempDownloadToken: "dl-token"}}
	inst, tok := e.addInstance("garm-jit", func(i *garrison.Instance) { i.JITConfig = jitConfig() })
	home := e.runBootstrap(inst, tok)
	for _, f := range []string{"runner", "credentials", "credentials_rsaparams"} {
		if got := readFile(t, filepath.Join(home, "."+f)); got != "content of ."+f {
			t.Fatalf(".%s = %q", f, got)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "config.args")); err == nil {
		t.Fatal("config.sh ran for a JIT runner")
	}
	e.wantInstalled("garm-jit", 0)
}

func TestBootstrapGitea(t *testing.T) {
	e := newEnv(t, envConfig{forge: garrison.Gitea, entityType: garrison.Organization})
	dl := downloadServer(t, []byte(fakeGiteaRunner))
	e.forge.tools = []provider.RunnerApplicationDownload{{OS: "linux", Architecture: "amd64",
		DownloadURL: dl.URL + "/act_runner", Filename: "act_runner-0.2.11-linux-amd64", TempDownloadToken: "dl-token"}}
	inst, tok := e.addInstance("garm-gitea", nil)
	home := e.runBootstrap(inst, tok)
	args := readFile(t, filepath.Join(home, "register.args"))
	if !strings.HasPrefix(args, "register --ephemeral --no-interactive --instance https://ghe.example/api/v3/ --token reg-token-1 --name garm-gitea --labels linux,x64,") {
		t.Fatalf("register args %q", args)
	}
	e.wantInstalled("garm-gitea", 7)
}

func TestBootstrapReportsFailure(t *testing.T) {
	e := newEnv(t, envConfig{})
	dl := downloadServer(t, runnerTarball(t))
	e.forge.tools = []provider.RunnerApplicationDownload{{OS: "linux", Architecture: "x64",
		DownloadURL: dl.URL + "/r.tgz", Filename: "r.tar.gz"}} // no token: the download is refused
	inst, tok := e.addInstance("garm-fail", nil)
	w, err := bootstrap.Wrapper("linux", bootstrap.WrapperParams{MetadataURL: inst.MetadataURL, CallbackURL: inst.CallbackURL, InstanceToken: tok})
	must(t, err)
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "bash", "-c", string(w))
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "GARRISON_RUNNER_HOME="+filepath.Join(dir, "home"), "GARRISON_NO_SYSTEMD=1", "TMPDIR="+dir,
		"GARRISON_RUNNER_CACHE="+filepath.Join(dir, "none"))
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("bootstrap succeeded without the download token:\n%s", out)
	}
	i := e.instance("garm-fail")
	last := i.StatusMessages[len(i.StatusMessages)-1]
	if i.RunnerStatus != garrison.RunnerFailed || last.Message != "failed to download runner" {
		t.Fatalf("runner %s, last message %+v", i.RunnerStatus, last)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/standin"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// TestShims unpacks the runner archive around the built binary and drives it through
// config.sh and run.sh, and the bare binary as gitea-runner, against the simulator.
func TestShims(t *testing.T) {
	bin := providertest.Build(t, ".")
	sim := forgesim.New(forgesim.Options{})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken("pat")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // install the runner into dir
		steps [][]string                     // commands run in dir
	}{
		{"github", func(t *testing.T, dir string) { unpack(t, bin, dir) }, [][]string{
			{"./config.sh", "--unattended", "--url", url + "/acme/app", "--token", token(t, url, "/repos/acme/app/actions/runners/registration-token"),
				"--name", "shim-gh", "--labels", "linux", "--ephemeral"},
			{"./bin/runsvc.sh"}, // runs run.sh
		}},
		{"gitea", func(t *testing.T, dir string) { copyFile(t, bin, filepath.Join(dir, "gitea-runner")) }, [][]string{
			{"./gitea-runner", "register", "--ephemeral", "--no-interactive", "--instance", url + "/api/v1",
				"--token", token(t, url, "/api/v1/repos/acme/app/actions/runners/registration-token"), "--name", "shim-gitea", "--labels", "linux"},
			{"./gitea-runner", "daemon", "--once"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			job, err := sim.QueueJob("acme/app", "linux")
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range tt.steps {
				cmd := exec.CommandContext(t.Context(), step[0], step[1:]...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), standin.EnvJobDuration+"=10ms", standin.EnvIdleTimeout+"=30s")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %v\n%s", step, err, out)
				}
			}
			if j, _ := sim.Job(job); j.Status != "completed" || j.Conclusion != "success" {
				t.Fatalf("job %+v", j)
			}
		})
	}
}

// unpack extracts the runner archive around bin into dir with tar, as the install script does.
func unpack(t *testing.T, bin, dir string) {
	t.Helper()
	b, err := standin.Tarball(bin)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "tar", "-xzf", "-", "-C", dir)
	cmd.Stdin = bytes.NewReader(b)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, b, 0o755))
}

// token asks the simulator for a registration token at path.
func token(t *testing.T, base, path string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+path, strings.NewReader("{}"))
	must(t, err)
	req.Header.Set("Authorization", "Bearer pat")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var out struct{ Token string }
	must(t, json.NewDecoder(resp.Body).Decode(&out))
	if out.Token == "" {
		t.Fatalf("no token from %s (HTTP %d)", path, resp.StatusCode)
	}
	return out.Token
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package standin

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/forgesim"
)

const pat = "pat-standin"

// simEnv is a running forge simulator with repository acme/app.
type simEnv struct {
	t   *testing.T
	sim *forgesim.Sim
	url string
}

func newSimEnv(t *testing.T) *simEnv {
	t.Helper()
	sim := forgesim.New(forgesim.Options{})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken(pat)
	sim.AddOrg("acme")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	return &simEnv{t: t, sim: sim, url: url}
}

// post calls a forge route with the PAT and decodes the answer into out.
func (e *simEnv) post(path string, body, out any) {
	e.t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(e.t.Context(), http.MethodPost, e.url+path, bytes.NewReader(b))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+pat)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		e.t.Fatalf("POST %s: HTTP %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		e.t.Fatal(err)
	}
}

// jit writes the JIT files of a new runner into dir.
func (e *simEnv) jit(dir, name string, labels ...string) {
	e.t.Helper()
	var out struct {
		Encoded string `json:"encoded_jit_config"`
	}
	e.post("/repos/acme/app/actions/runners/generate-jitconfig",
		map[string]any{"name": name, "runner_group_id": 1, "labels": labels}, &out)
	if err := WriteJITConfig(dir, out.Encoded); err != nil {
		e.t.Fatal(err)
	}
}

// regToken returns a GitHub registration token for acme/app.
func (e *simEnv) regToken() string {
	e.t.Helper()
	var out struct{ Token string }
	e.post("/repos/acme/app/actions/runners/registration-token", nil, &out)
	return out.Token
}

// giteaToken returns the Gitea registration token of acme/app.
func (e *simEnv) giteaToken() string {
	e.t.Helper()
	var out struct{ Token string }
	e.post("/api/v1/repos/acme/app/actions/runners/registration-token", nil, &out)
	return out.Token
}

// queue queues a job and returns its id.
func (e *simEnv) queue(labels ...string) int64 {
	e.t.Helper()
	id, err := e.sim.QueueJob("acme/app", labels...)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// wantCompleted checks the job was completed with success by runner name.
func (e *simEnv) wantCompleted(id int64, name string) {
	e.t.Helper()
	j, _ := e.sim.Job(id)
	if j.Status != "completed" || j.Conclusion != "success" || !strings.EqualFold(j.RunnerName, name) {
		e.t.Fatalf("job %d: status %s conclusion %s runner %q", id, j.Status, j.Conclusion, j.RunnerName)
	}
}

// main runs Main in-process and returns the exit code, stdout and stderr.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(t.Context(), args, &out, &errOut, func(string) string { return "" })
	return code, out.String(), errOut.String()
}

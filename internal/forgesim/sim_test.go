package forgesim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
)

const pat = "pat-test"

// receiver records webhook deliveries.
type receiver struct {
	mu   sync.Mutex // guards got
	got  []received
	srv  *httptest.Server
	code int
}

type received struct {
	h    http.Header
	body []byte
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{code: http.StatusOK}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{r.Header.Clone(), b})
		code := rc.code
		rc.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

func newSim(t *testing.T, opts Options) (*Sim, string) {
	t.Helper()
	s := New(opts)
	url, err := s.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	s.AddToken(pat)
	s.AddOrg("acme")
	if err := s.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	return s, url
}

func call(t *testing.T, method, url, token string, body any) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestJITAndRunnerLifecycle(t *testing.T) {
	s, url := newSim(t, Options{})
	rc := newReceiver(t)
	if _, err := s.AddHook("repos/acme/app", rc.srv.URL, "s3cr3t", garrison.GitHub); err != nil {
		t.Fatal(err)
	}
	jit := map[string]any{"name": "r1", "runner_group_id": 1, "labels": []string{"self-hosted", "Linux"}}
	for _, base := range []string{url, url + "/api/v3"} {
		t.Run(base, func(t *testing.T) {
			resp, _ := call(t, "POST", base+"/orgs/acme/actions/runners/generate-jitconfig", pat, jit)
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("jit: %d", resp.StatusCode)
			}
			resp, body := call(t, "POST", base+"/orgs/acme/actions/runners/generate-jitconfig", pat, jit)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "Already exists") {
				t.Fatalf("duplicate: %d %s", resp.StatusCode, body)
			}
			rn := s.Runners()[len(s.Runners())-1]
			jobID, err := s.QueueJob("acme/app", "linux")
			if err != nil {
				t.Fatal(err)
			}
			resp, body = call(t, "POST", url+"/_sim/runners/r1/acquire", rn.Secret, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("acquire: %d %s", resp.StatusCode, body)
			}
			resp, _ = call(t, "DELETE", base+"/orgs/acme/actions/runners/"+itoa(rn.ID), pat, nil)
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("delete busy: %d", resp.StatusCode)
			}
			for _, step := range []string{"start", "complete"} {
				if resp, body := call(t, "POST", url+"/_sim/jobs/"+itoa(jobID)+"/"+step, rn.Secret, nil); resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: %d %s", step, resp.StatusCode, body)
				}
			}
			resp, _ = call(t, "DELETE", base+"/orgs/acme/actions/runners/"+itoa(rn.ID), pat, nil)
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("ephemeral runner not deleted: %d", resp.StatusCode)
			}
			if resp, _ := call(t, "POST", url+"/_sim/runners/r1/acquire", rn.Secret, nil); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("deleted runner acquire: %d", resp.StatusCode)
			}
		})
	}
	if err := s.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := rc.all()
	if len(got) != 6 {
		t.Fatalf("deliveries = %d, want 6", len(got))
	}
	for i, d := range got {
		if err := webhook.Verify(d.h, d.body, []byte("s3cr3t")); err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
		ev, err := webhook.Parse(d.h, d.body)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"queued", "in_progress", "completed"}[i%3]
		if ev.Action != want || ev.EntityName != "app" || ev.BaseURL != url {
			t.Fatalf("delivery %d: %+v", i, ev)
		}
		if want != "queued" && ev.RunnerName != "r1" {
			t.Fatalf("runner fields missing: %+v", ev)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestJITValidation(t *testing.T) {
	s, url := newSim(t, Options{})
	gid, err := s.AddRunnerGroup("acme", "gpu", false)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, token string
		body              map[string]any
		want              int
	}{
		{"ok custom group", "/orgs/acme", pat, map[string]any{"name": "a", "runner_group_id": gid, "labels": []string{"x"}}, 201},
		{"no group", "/orgs/acme", pat, map[string]any{"name": "b", "labels": []string{"x"}}, 422},
		{"no labels", "/orgs/acme", pat, map[string]any{"name": "b", "runner_group_id": 1}, 422},
		{"unknown group", "/orgs/acme", pat, map[string]any{"name": "b", "runner_group_id": 999, "labels": []string{"x"}}, 404},
		{"repo non-default group", "/repos/acme/app", pat, map[string]any{"name": "b", "runner_group_id": gid, "labels": []string{"x"}}, 404},
		{"unknown org", "/orgs/nope", pat, map[string]any{"name": "b", "runner_group_id": 1, "labels": []string{"x"}}, 404},
		{"bad token", "/orgs/acme", "wrong", map[string]any{"name": "b", "runner_group_id": 1, "labels": []string{"x"}}, 401},
		{"no token", "/orgs/acme", "", map[string]any{"name": "b", "runner_group_id": 1, "labels": []string{"x"}}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := call(t, "POST", url+tt.path+"/actions/runners/generate-jitconfig", tt.token, tt.body)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if tt.want != 201 {
				return
			}
			var out struct {
				EncodedJITConfig string `json:"encoded_jit_config"`
			}
			_ = json.Unmarshal(body, &out)
			raw, _ := base64.StdEncoding.DecodeString(out.EncodedJITConfig)
			var files map[string]string
			if err := json.Unmarshal(raw, &files); err != nil || len(files) != 3 {
				t.Fatalf("jit files: %v %v", files, err)
			}
			cred, _ := base64.StdEncoding.DecodeString(files[".credentials"])
			secret, err := RunnerSecret(cred)
			if err != nil || secret != s.Runners()[0].Secret {
				t.Fatalf("RunnerSecret = %q, %v", secret, err)
			}
		})
	}
}

func TestLabelMatching(t *testing.T) {
	s, _ := newSim(t, Options{})
	if err := s.AddRepo("other/repo"); err != nil {
		t.Fatal(err)
	}
	tok := regToken(t, s, "orgs/acme")
	small, _ := s.RegisterRunner(tok, "small", []string{"self-hosted", "linux"}, false)
	big, _ := s.RegisterRunner(tok, "big", []string{"SELF-HOSTED", "Linux", "gpu"}, false)
	_, _ = s.QueueJob("other/repo", "linux") // not in the org's scope
	gpu, _ := s.QueueJob("acme/app", "linux", "gpu")
	if j, err := s.Acquire("small", small.Secret); err != nil || j != nil {
		t.Fatalf("small took %v, %v", j, err)
	}
	if j, err := s.Acquire("big", big.Secret); err != nil || j == nil || j.ID != gpu {
		t.Fatalf("big took %v, %v", j, err)
	}
	if _, err := s.Acquire("big", small.Secret); !errorsIs(err, garrison.ErrUnauthorized) {
		t.Fatalf("wrong secret: %v", err)
	}
}

func regToken(t *testing.T, s *Sim, scopePath string) string {
	t.Helper()
	resp, body := call(t, "POST", s.URL()+"/"+scopePath+"/actions/runners/registration-token", pat, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("registration token: %d", resp.StatusCode)
	}
	var out struct{ Token string }
	_ = json.Unmarshal(body, &out)
	return out.Token
}

func TestJobDurationReachesTheRunner(t *testing.T) {
	s, url := newSim(t, Options{})
	if _, err := s.RegisterRunner(regToken(t, s, "repos/acme/app"), "r1", []string{"linux"}, true); err != nil {
		t.Fatal(err)
	}
	resp, body := call(t, "POST", url+"/_sim/jobs", "", map[string]any{"repo": "acme/app", "labels": []string{"linux"}, "duration": "1m30s"})
	if resp.StatusCode != http.StatusCreated || !strings.Contains(string(body), `"duration":"1m30s"`) {
		t.Fatalf("queue with duration: %d %s", resp.StatusCode, body)
	}
	rn := s.Runners()[0]
	resp, body = call(t, "POST", url+"/_sim/runners/r1/acquire", rn.Secret, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"duration":"1m30s"`) {
		t.Fatalf("acquire: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, "POST", url+"/_sim/jobs", "", map[string]any{"repo": "acme/app", "duration": "soon"})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad duration accepted: %d %s", resp.StatusCode, body)
	}
}

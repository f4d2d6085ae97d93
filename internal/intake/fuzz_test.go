package intake

import (
	"net/http"
	"testing"

	"github.com/garrison-ci/garrison/internal/forge/webhook"
)

// FuzzIntake sends random bodies and headers: the receiver never panics and never answers
// 5xx, since every fault is the client's and the store works.
func FuzzIntake(f *testing.F) {
	e := newEnv(f)
	valid := queued(1, stdLabels...).github()
	f.Add("workflow_job", "repository", "", valid, true, "")
	f.Add("workflow_job", "organization", "", valid, true, "x")
	f.Add("workflow_job", "business", "sha1=00", []byte(`{"workflow_job":{"id":1}}`), false, "")
	f.Add("workflow_job", "repository", "", queued(2, stdLabels...).as("completed", ourRunner).github(), true, e.ctrlID)
	f.Add("workflow_job", "system", "", job{action: "queued", id: 3, labels: []string{"ubuntu-latest"}}.gitea(), true, "")
	f.Add("ping", "", "sha256", []byte(`{}`), false, "")
	f.Add("workflow_job", "repository", "sha256=zz", []byte(`{"workflow_job":null}`), false, "")
	f.Add("workflow_job", "repository", "", []byte("payload=%7B"), true, "")
	f.Fuzz(func(t *testing.T, event, target, sig string, body []byte, sign bool, ctrl string) {
		h := http.Header{}
		h.Set(webhook.HeaderGitHubEvent, event)
		h.Set(webhook.HeaderGitHubTargetType, target)
		if len(body) > 0 && body[0] == 'p' {
			h.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if len(target) > 0 && target[0] == 's' {
			h.Set("X-Gitea-Hook-Installation-Target-Type", target)
		}
		switch {
		case sign:
			h.Set(webhook.HeaderSignature256, webhook.Signature256(body, []byte(ghSecret)))
		case sig != "":
			h.Set(webhook.HeaderSignature256, sig)
		}
		path := "/webhooks"
		if ctrl != "" {
			path += "/" + ctrl
		}
		w := e.send(delivery{path: safePath(path), header: h, body: body})
		if w.Code >= 500 {
			t.Fatalf("status %d for event %q target %q body %q: %s", w.Code, event, target, body, w.Body)
		}
	})
}

// safePath keeps the path usable in a request line.
func safePath(p string) string {
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if c := p[i]; c > ' ' && c < 0x7f && c != '?' && c != '#' && c != '%' {
			out = append(out, c)
		}
	}
	return string(out)
}

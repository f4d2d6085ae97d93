package gitea

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
)

// giteaAnswerSeeds are answers in the shapes the client reads, and broken ones.
var giteaAnswerSeeds = []string{
	`{"runners":[{"id":1,"name":"r","status":"online","busy":true,"ephemeral":true,"labels":[{"name":"ubuntu"}]}],"total_count":1}`,
	`[{"id":7,"active":true,"events":["workflow_job"],"config":{"url":"https://g/hook","content_type":"json"}}]`,
	`{"jobs":[{"id":3,"run_id":2,"name":"build","status":"queued","labels":["ubuntu"],"html_url":"https://g/o/r/actions/runs/2/jobs/0","created_at":"2030-01-01T00:00:00Z"}],"total_count":1}`,
	`{"token":"AAAA"}`, `{"message":"token is required"}`, `{"runners":null,"total_count":-1}`,
	`{"labels":[{"name":5}]}`, `{"config":{"url":1}}`, `null`, `[]`, `{`, ``, `"x"`, `{"id":1e400}`,
}

// FuzzGiteaAnswers: Gitea's JSON answers (runner pages, hook lists, job pages, tokens,
// error bodies) are untrusted. Decoding never panics, fails only with errMalformed (code
// EUnprocessable), and whatever decodes converts to the domain's types and survives a
// round trip through JSON.
func FuzzGiteaAnswers(f *testing.F) {
	for _, s := range giteaAnswerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		targets := []any{&runnerPage{}, &[]hookJSON{}, &jobPage{}, &runnerJSON{}, &hookJSON{}}
		for _, out := range targets {
			if err := decode(body, out); err != nil {
				if !errors.Is(err, errMalformed) || garrison.CodeOf(err) != garrison.EUnprocessable {
					t.Fatalf("%T: error %v is not errMalformed", out, err)
				}
				continue
			}
			toDomain(out)
			raw, err := json.Marshal(out)
			if err != nil {
				t.Fatalf("%T: %v", out, err)
			}
			again := reflect.New(reflect.TypeOf(out).Elem()).Interface()
			if err := decode(raw, again); err != nil || !reflect.DeepEqual(normalize(again), normalize(out)) {
				t.Fatalf("%T: round trip of %q: %+v %v, want %+v", out, body, again, err, out)
			}
		}
		err := apiError("GET", "/x", 403, body)
		if !errors.Is(err, garrison.ErrUnauthorized) || garrison.MessageOf(err) == "" {
			t.Fatalf("403 with body %q: %v", body, err)
		}
	})
}

// toDomain converts a decoded answer to the domain's types, as the client does.
func toDomain(out any) {
	switch v := out.(type) {
	case *runnerPage:
		for _, r := range v.Runners {
			_ = r.runner()
		}
	case *[]hookJSON:
		for _, h := range *v {
			_ = h.hook()
		}
	case *jobPage:
		for _, j := range v.Jobs {
			_ = j.job()
		}
	case *runnerJSON:
		_ = v.runner()
	case *hookJSON:
		_ = v.hook()
	}
}

// normalize makes nil and empty slices and maps compare equal (JSON does not keep the
// difference), by round-tripping through a generic value.
func normalize(v any) any {
	raw, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// FuzzRunnerReleases: the tools metadata URL's release list is untrusted. Decoding and
// choosing a release never panic; the result is either ENotFound or downloads whose OS
// and architecture are plain names (no variant suffix), whose files are runner binaries
// (no checksum, no archive) and whose URLs are http(s). Tags that parse as versions
// print back to themselves.
func FuzzRunnerReleases(f *testing.F) {
	for _, s := range []string{
		`[{"tag_name":"v0.3.0","assets":[{"name":"gitea-runner-0.3.0-linux-amd64","browser_download_url":"https://g/d/1"},{"name":"gitea-runner-0.3.0-linux-arm-7","browser_download_url":"https://g/d/2"},{"name":"gitea-runner-0.3.0-linux-amd64.sha256","browser_download_url":"https://g/d/3"}]}]`,
		`[{"tag_name":"v0.2.12","assets":[{"name":"act_runner-0.2.12-windows-amd64.exe","browser_download_url":"http://g/d"}]}]`,
		`[{"tag_name":"v0.2.11","assets":[{"name":"act_runner-0.2.11-linux-amd64","browser_download_url":"https://g/d"}]}]`,
		`[{"tag_name":"v1.0.0","draft":true,"assets":[]}]`, `[{"tag_name":"v1.0.0","assets":[{"name":"gitea-runner-1.0.0-linux-amd64","browser_download_url":"file:///etc/passwd"}]}]`,
		`[{"tag_name":"v1.0.0-rc1"}]`, `[{"tag_name":"v01.0.0"}]`, `[]`, `null`, `{}`, `[{"assets":null}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var rels []releaseJSON
		if err := decode(body, &rels); err != nil {
			if !errors.Is(err, errMalformed) {
				t.Fatalf("error %v is not errMalformed", err)
			}
			return
		}
		for _, rel := range rels {
			if v, pre, ok := parseVersion(rel.TagName); ok && !pre && !strings.Contains(rel.TagName, "+") {
				printed := fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
				if strings.TrimPrefix(rel.TagName, "v") != printed {
					t.Fatalf("tag %q parsed as %v", rel.TagName, v)
				}
				if !atLeast(rel.TagName, rel.TagName) {
					t.Fatalf("tag %q is not at least itself", rel.TagName)
				}
			}
		}
		ds, err := pickDownloads(rels, "https://g/releases")
		if err != nil {
			if !errors.Is(err, garrison.ErrNotFound) {
				t.Fatalf("error %v is not ErrNotFound", err)
			}
			return
		}
		for _, d := range ds {
			if d.OS == "" || d.Architecture == "" || strings.Contains(d.Architecture, "-") ||
				strings.HasSuffix(d.Filename, ".sha256") || strings.HasSuffix(d.Filename, ".xz") || !garrison.ValidURL(d.DownloadURL) {
				t.Fatalf("download %+v from %q", d, body)
			}
			if !strings.HasPrefix(d.Filename, "gitea-runner-") && !strings.HasPrefix(d.Filename, "act_runner-") {
				t.Fatalf("download %+v is no runner binary", d)
			}
		}
	})
}

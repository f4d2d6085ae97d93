package bootstrap

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var testParams = WrapperParams{
	MetadataURL:   "http://127.0.0.1:1/api/v1/metadata",
	CallbackURL:   "http://127.0.0.1:1/api/v1/callbacks",
	InstanceToken: "tok'en",
	HTTPProxy:     "http://proxy:3128",
	NoProxy:       "localhost,127.0.0.1",
}

func TestWrapperOS(t *testing.T) {
	lin, err := Wrapper("linux", testParams)
	if err != nil || !bytes.HasPrefix(lin, []byte("#!/bin/bash\n")) {
		t.Fatalf("linux wrapper: %v %q", err, lin[:min(20, len(lin))])
	}
	win, err := Wrapper("windows", testParams)
	if err != nil || !bytes.HasPrefix(win, []byte("#ps1_sysnative\n")) {
		t.Fatalf("windows wrapper: %v", err)
	}
	for _, s := range [][]byte{lin, win} {
		for _, want := range []string{"http://127.0.0.1:1/api/v1/metadata", "http://127.0.0.1:1/api/v1/callbacks", "http://proxy:3128", "install-script/"} {
			if !bytes.Contains(s, []byte(want)) {
				t.Errorf("wrapper lacks %q", want)
			}
		}
	}
	if _, err := Wrapper("plan9", testParams); !errors.Is(err, ErrUnsupportedOS) {
		t.Fatalf("plan9: %v", err)
	}
}

func TestWrapperBashSyntax(t *testing.T) {
	p := testParams
	p.CACertBundle = []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	p.HTTPSProxy = "http://u:p@proxy:3128"
	for _, params := range []WrapperParams{testParams, p, {}} {
		s, err := Wrapper("linux", params)
		if err != nil {
			t.Fatal(err)
		}
		bashSyntax(t, s)
	}
}

// bashSyntax fails the test unless bash -n accepts script.
func bashSyntax(t *testing.T, script []byte) {
	t.Helper()
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = bytes.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s\n--- script ---\n%s", err, out, script)
	}
}

func TestInjectTemplate(t *testing.T) {
	wrapper, _ := Wrapper("linux", testParams)
	b64 := base64.StdEncoding.EncodeToString(wrapper)
	tests := []struct {
		name, os, in string
		want         map[string]any // nil: output must equal input
	}{
		{name: "absent", os: "linux", in: "", want: map[string]any{TemplateKey: b64}},
		{name: "blank", os: "linux", in: "  ", want: map[string]any{TemplateKey: b64}},
		{name: "empty object", os: "linux", in: "{ }", want: map[string]any{TemplateKey: b64}},
		{name: "object", os: "linux", in: `{"foo":"bar","n":{"x":[1]}}`, want: map[string]any{"foo": "bar", "n": map[string]any{"x": []any{1.0}}, TemplateKey: b64}},
		{name: "override kept", os: "linux", in: `{"runner_install_template":"dXNlcg==","a":1}`},
		{name: "override empty kept", os: "linux", in: `{"runner_install_template":""}`},
		{name: "null", os: "linux", in: `null`},
		{name: "array", os: "linux", in: `[1,2]`},
		{name: "string", os: "linux", in: `"x"`},
		{name: "no wrapper for os", os: "darwin", in: `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InjectTemplate(json.RawMessage(tt.in), tt.os, testParams)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if string(got) != tt.in {
					t.Fatalf("changed: %s", got)
				}
				return
			}
			var m map[string]any
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			gj, _ := json.Marshal(m)
			wj, _ := json.Marshal(tt.want)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("got %s\nwant %s", gj, wj)
			}
		})
	}
	if _, err := InjectTemplate(json.RawMessage(`{bad`), "linux", testParams); !errors.Is(err, ErrInvalidExtraSpecs) {
		t.Fatalf("invalid JSON: %v", err)
	}
}

// fakeMetadata serves install-script with the given status and body and records what is
// posted to the status callback.
type fakeMetadata struct {
	status int
	body   string
	mu     sync.Mutex // guards posts and auth
	posts  []string
	auth   []string
}

func (f *fakeMetadata) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	switch r.URL.Path {
	case "/api/v1/metadata/install-script/":
		if f.status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(f.status)
		io.WriteString(w, f.body)
	case "/api/v1/callbacks/status":
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.posts = append(f.posts, string(b))
		f.mu.Unlock()
	default:
		http.NotFound(w, r)
	}
}

// runWrapper renders the Linux wrapper for srv and runs it with bash.
func runWrapper(t *testing.T, srv *httptest.Server, callbackSuffix string) error {
	t.Helper()
	s, err := Wrapper("linux", WrapperParams{
		MetadataURL:   srv.URL + "/api/v1/metadata",
		CallbackURL:   srv.URL + "/api/v1/callbacks" + callbackSuffix,
		InstanceToken: "the-token",
		NoProxy:       "127.0.0.1",
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wrapper.sh")
	if err := os.WriteFile(path, s, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", path)
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("wrapper output:\n%s", out)
	return err
}

func TestWrapperRunsInstallScript(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	f := &fakeMetadata{status: http.StatusOK, body: "#!/bin/bash\necho installed >" + shQuote(marker) + "\n"}
	srv := httptest.NewServer(f)
	defer srv.Close()
	if err := runWrapper(t, srv, ""); err != nil {
		t.Fatalf("wrapper: %v", err)
	}
	b, err := os.ReadFile(marker)
	if err != nil || string(b) != "installed\n" {
		t.Fatalf("marker: %q %v", b, err)
	}
	if f.auth[0] != "Bearer the-token" {
		t.Fatalf("auth header %q", f.auth[0])
	}
	if len(f.posts) != 0 {
		t.Fatalf("unexpected callbacks %q", f.posts)
	}
}

func TestWrapperReportsHTTPError(t *testing.T) {
	tests := []struct{ name, body, suffix, wantMsg string }{
		{"details", `{"error":"Conflict","details":"pool has no \"template\""}`, "", `failed to fetch install script (HTTP 409): pool has no "template"`},
		{"error only", `{"error":"Conflict","details":""}`, "/status/", "failed to fetch install script (HTTP 409): Conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeMetadata{status: http.StatusConflict, body: tt.body}
			srv := httptest.NewServer(f)
			defer srv.Close()
			if err := runWrapper(t, srv, tt.suffix); err == nil {
				t.Fatal("wrapper succeeded on a 409")
			}
			if len(f.posts) != 1 {
				t.Fatalf("callbacks: %q", f.posts)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(f.posts[0]), &got); err != nil {
				t.Fatalf("callback body %q: %v", f.posts[0], err)
			}
			want := map[string]any{"status": "failed", "message": tt.wantMsg}
			if got["status"] != want["status"] || got["message"] != want["message"] || len(got) != 2 {
				t.Fatalf("callback body %v, want %v", got, want)
			}
			if !strings.HasPrefix(f.auth[len(f.auth)-1], "Bearer ") {
				t.Fatal("callback without bearer token")
			}
		})
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// call is one request the fake server received.
type call struct {
	Method, Path, Query string
	Header              http.Header
	Body                map[string]json.RawMessage // nil when there was no body
	RawBody             []byte
}

// reply is a canned answer.
type reply struct {
	status int
	body   any // marshalled to JSON; a string is sent verbatim
}

// fakeServer records requests and answers from a table keyed by
// "METHOD /path" (path below /api/v1, without the query). Unlisted routes
// answer 200 with "null" (DELETE: an empty body).
type fakeServer struct {
	t       *testing.T
	srv     *httptest.Server
	replies map[string]reply

	mu    sync.Mutex // guards calls
	calls []call
}

func newFakeServer(t *testing.T, replies map[string]reply) *fakeServer {
	t.Helper()
	fs := &fakeServer{t: t, replies: replies}
	fs.srv = httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(fs.srv.Close)
	return fs
}

func (fs *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	c := call{
		Method:  r.Method,
		Path:    strings.TrimPrefix(r.URL.Path, apiclient.APIPrefix),
		Query:   r.URL.RawQuery,
		Header:  r.Header.Clone(),
		RawBody: raw,
	}
	if !strings.HasPrefix(r.URL.Path, apiclient.APIPrefix+"/") {
		c.Path = "!" + r.URL.Path // makes the comparison fail visibly
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c.Body); err != nil {
			fs.t.Errorf("%s %s: body is not a JSON object: %s", r.Method, r.URL.Path, raw)
		}
	}
	fs.mu.Lock()
	fs.calls = append(fs.calls, c)
	fs.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	rep, ok := fs.replies[c.Method+" "+c.Path]
	if !ok {
		if r.Method != http.MethodDelete {
			io.WriteString(w, "null")
		}
		return
	}
	if rep.status != 0 {
		w.WriteHeader(rep.status)
	}
	if s, ok := rep.body.(string); ok {
		io.WriteString(w, s)
		return
	}
	if rep.body != nil {
		json.NewEncoder(w).Encode(rep.body)
	}
}

func (fs *fakeServer) recorded() []call {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]call(nil), fs.calls...)
}

// env is a configuration directory and environment for one test.
type env struct {
	dir   string
	vars  map[string]string
	hc    *http.Client
	stdin io.Reader // nil: empty
}

func newEnv(t *testing.T) *env {
	return &env{dir: t.TempDir(), vars: map[string]string{}}
}

func (e *env) options() Options {
	stdin := e.stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	return Options{
		ConfigDir:  e.dir,
		HTTPClient: e.hc,
		Getenv:     func(k string) string { return e.vars[k] },
		Stdin:      stdin,
	}
}

// withProfile saves an active profile pointing at srv with token "tok".
func (e *env) withProfile(t *testing.T, srv *fakeServer) *env {
	t.Helper()
	a := &app{opts: e.options()}
	s, err := a.store()
	if err != nil {
		t.Fatal(err)
	}
	s.put(Profile{Name: "main", URL: srv.srv.URL, Username: "admin", Token: "tok"})
	s.data.Active = "main"
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	e.hc = srv.srv.Client()
	return e
}

// run executes the command line under a root command like cmd/garrison's and
// returns stdout, stderr and the error.
func (e *env) run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := &cobra.Command{Use: "garrison"}
	root.AddCommand(Commands(e.options())...)
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

// keys returns the sorted keys of a decoded body.
func keys(b map[string]json.RawMessage) []string {
	if b == nil {
		return nil
	}
	out := make([]string, 0, len(b))
	for k := range b {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compactJSON normalizes a JSON text for comparison.
func compactJSON(t *testing.T, s []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, s); err != nil {
		t.Fatalf("invalid JSON %q: %v", s, err)
	}
	return buf.String()
}

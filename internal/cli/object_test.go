package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// objectServer plays the object routes: it keeps the last upload and serves it back.
type objectServer struct {
	mu     sync.Mutex
	header http.Header
	length int64
	body   []byte
}

func (o *objectServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch r.Method + " " + r.URL.Path {
	case "POST /api/v1/objects/":
		o.header, o.length = r.Header.Clone(), r.ContentLength
		o.body, _ = io.ReadAll(r.Body)
		json.NewEncoder(w).Encode(apiv1.FileObject{ID: 3, Name: r.Header.Get("X-File-Name"), Size: int64(len(o.body))})
	case "GET /api/v1/objects/3/download":
		w.Header().Set("Content-Disposition", `attachment; filename="x.bin"`)
		w.Write(o.body)
	case "GET /api/v1/objects/3":
		json.NewEncoder(w).Encode(apiv1.FileObject{ID: 3, Name: "x.bin"})
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"Not found","details":"no such object"}`)
	}
}

// TestObjectCommands uploads a file as garm-cli does (raw body, X-File-Name, X-Tags,
// Content-Length) and downloads it back, refusing to overwrite a file.
func TestObjectCommands(t *testing.T) {
	osrv := &objectServer{}
	srv := &fakeServer{t: t, srv: httptest.NewServer(osrv)}
	t.Cleanup(srv.srv.Close)
	e := newEnv(t).withProfile(t, srv)
	dir := t.TempDir()
	src := filepath.Join(dir, "tool.bin")
	must(t, writeFile(src, "\x7fELF binary content"))
	stdout, stderr, err := e.run(t, "object", "create", "--path", src, "--tags", "a,B", "--description", "d")
	if err != nil {
		t.Fatalf("create: %v %s", err, stderr)
	}
	if osrv.header.Get("X-File-Name") != "tool.bin" || osrv.header.Get("X-Tags") != "a,B" || osrv.header.Get("X-File-Description") != "d" ||
		osrv.length != 19 || string(osrv.body) != "\x7fELF binary content" || !strings.Contains(stdout, "tool.bin") {
		t.Fatalf("upload: headers %v, length %d, body %q; output %s", osrv.header, osrv.length, osrv.body, stdout)
	}
	out := filepath.Join(dir, "copy.bin")
	if _, stderr, err := e.run(t, "object", "download", "3", "--out-file", out); err != nil {
		t.Fatalf("download: %v %s", err, stderr)
	}
	if b, _ := readFile(out); b != "\x7fELF binary content" {
		t.Fatalf("downloaded %q", b)
	}
	if _, _, err := e.run(t, "object", "download", "3", "--out-file", out); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("download over an existing file: %v", err)
	}
	if _, _, err := e.run(t, "object", "download", "9", "--out-file", filepath.Join(dir, "nine")); err == nil {
		t.Fatal("downloading an unknown object succeeded")
	}
	if _, err := readFile(filepath.Join(dir, "nine")); err == nil {
		t.Fatal("a failed download left a file")
	}
	if _, _, err := e.run(t, "object", "show", "abc"); err == nil || !strings.Contains(err.Error(), "want a number") {
		t.Fatalf("bad id: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o600) }

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

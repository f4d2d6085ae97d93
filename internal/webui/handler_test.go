package webui_test

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/garrison-ci/garrison/internal/webui"
)

func newHandler(t *testing.T) *webui.Handler {
	t.Helper()
	h, err := webui.New()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// serve sends a request with the raw path p (not cleaned, as a hostile client may send
// it) and returns the recorded answer.
func serve(h http.Handler, method, p string, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/", nil)
	req.URL.Path = p
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func embeddedFile(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(webui.Assets(), name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServe: files by path with their types, page routes get index.html, anything that
// is neither is 404, and only GET and HEAD are answered.
func TestServe(t *testing.T) {
	h := newHandler(t)
	index := embeddedFile(t, "index.html")
	css := embeddedFile(t, "app.css")
	tests := []struct {
		method, path string
		status       int
		ctype        string // prefix
		body         string // "" = not checked
		location     string
	}{
		{"GET", "/ui/", 200, "text/html; charset=utf-8", index, ""},
		{"GET", "/ui/index.html", 200, "text/html; charset=utf-8", index, ""},
		{"GET", "/ui/app.css", 200, "text/css; charset=utf-8", css, ""},
		{"GET", "/ui/js/main.js", 200, "text/javascript; charset=utf-8", "", ""},
		{"GET", "/ui/favicon.svg", 200, "image/svg+xml", "", ""},
		{"GET", "/ui/pools", 200, "text/html", index, ""},
		{"GET", "/ui/pools/8d3c1a2e-0000-4000-8000-000000000001", 200, "text/html", index, ""},
		{"GET", "/ui/runners/garm-AbC123", 200, "text/html", index, ""},
		{"GET", "/ui/jobs/", 200, "text/html", index, ""},
		{"GET", "/ui/js/missing.js", 404, "text/plain", "", ""},
		{"GET", "/ui/nothing.png", 404, "text/plain", "", ""},
		{"GET", "/ui/../go.mod", 404, "text/plain", "", ""},
		{"GET", "/ui/js/../app.css", 404, "text/plain", "", ""},
		{"GET", "/ui/./app.css", 404, "text/plain", "", ""},
		{"GET", "/ui/a\\..\\b", 404, "text/plain", "", ""},
		{"GET", "/", 301, "", "", "/ui/"},
		{"GET", "/ui", 301, "", "", "/ui/"},
		{"GET", "/other", 404, "text/plain", "", ""},
		{"HEAD", "/ui/app.css", 200, "text/css", "", ""},
		{"POST", "/ui/", 405, "text/plain", "", ""},
		{"DELETE", "/ui/app.css", 405, "text/plain", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := serve(h, tt.method, tt.path, nil)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.ctype) {
				t.Errorf("Content-Type %q, want %q", ct, tt.ctype)
			}
			if tt.body != "" && rec.Body.String() != tt.body {
				t.Errorf("body is not the expected file (%d bytes)", rec.Body.Len())
			}
			if loc := rec.Header().Get("Location"); loc != tt.location {
				t.Errorf("Location %q, want %q", loc, tt.location)
			}
			if tt.method == "HEAD" && rec.Body.Len() != 0 {
				t.Errorf("HEAD answered with a body of %d bytes", rec.Body.Len())
			}
			if tt.status == 405 && rec.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", rec.Header().Get("Allow"))
			}
		})
	}
}

// TestSecurityHeaders: every answer, whatever its status, carries the policy that
// forbids inline and third-party script, framing and plugins.
func TestSecurityHeaders(t *testing.T) {
	h := newHandler(t)
	csp := webui.ContentSecurityPolicy
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
		"frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("policy lacks %q: %s", want, csp)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:"} {
		if strings.Contains(csp, bad) {
			t.Errorf("policy allows %q: %s", bad, csp)
		}
	}
	for _, p := range []string{"/ui/", "/ui/js/main.js", "/ui/pools/x", "/ui/missing.js", "/", "/ui/../x"} {
		for _, m := range []string{"GET", "POST"} {
			rec := serve(h, m, p, nil)
			hd := rec.Header()
			if hd.Get("Content-Security-Policy") != csp {
				t.Errorf("%s %s (%d): Content-Security-Policy %q", m, p, rec.Code, hd.Get("Content-Security-Policy"))
			}
			if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("X-Frame-Options") != "DENY" || hd.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("%s %s: security headers %v", m, p, hd)
			}
		}
	}
}

// TestCaching: every file is revalidated on each load and answered 304 while unchanged,
// so an upgraded binary never leaves a browser with a mix of old and new modules.
func TestCaching(t *testing.T) {
	h := newHandler(t)
	seen := map[string]string{}
	for _, p := range []string{"/ui/", "/ui/app.css", "/ui/js/main.js", "/ui/js/api.js"} {
		rec := serve(h, "GET", p, nil)
		etag := rec.Header().Get("ETag")
		if rec.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: Cache-Control %q", p, rec.Header().Get("Cache-Control"))
		}
		if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 10 {
			t.Fatalf("%s: ETag %q", p, etag)
		}
		if other, dup := seen[etag]; dup {
			t.Errorf("%s and %s share the ETag %s", p, other, etag)
		}
		seen[etag] = p
		again := serve(h, "GET", p, http.Header{"If-None-Match": {etag}})
		if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
			t.Errorf("%s with If-None-Match: %d, %d bytes; want 304, none", p, again.Code, again.Body.Len())
		}
		stale := serve(h, "GET", p, http.Header{"If-None-Match": {`"0000"`}})
		if stale.Code != http.StatusOK {
			t.Errorf("%s with a stale ETag: %d", p, stale.Code)
		}
	}
	// A page route is index.html, with index.html's validator.
	if a, b := serve(h, "GET", "/ui/pools/x", nil).Header().Get("ETag"), serve(h, "GET", "/ui/", nil).Header().Get("ETag"); a != b {
		t.Errorf("page route ETag %s, index %s", a, b)
	}
}

// TestETagFollowsContent: the validator changes with the file's bytes.
func TestETagFollowsContent(t *testing.T) {
	etag := func(body string) string {
		h, err := webui.NewFS(fstest.MapFS{"index.html": {Data: []byte(body)}})
		if err != nil {
			t.Fatal(err)
		}
		return serve(h, "GET", "/ui/", nil).Header().Get("ETag")
	}
	if etag("<p>one</p>") == etag("<p>two</p>") {
		t.Error("different files, same ETag")
	}
}

func TestNewFSNeedsIndex(t *testing.T) {
	if _, err := webui.NewFS(fstest.MapFS{"app.css": {Data: []byte("p{}")}}); err == nil {
		t.Error("assets without index.html accepted")
	}
}

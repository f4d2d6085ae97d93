package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/garrison-ci/garrison/internal/httpapi"
)

// uiStub stands in for the web UI: it answers 200 "ui" and says which path it got.
var uiStub = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-UI-Path", r.URL.Path)
	_, _ = w.Write([]byte("ui"))
})

// TestUIMount: with a UI, "/" and everything under /ui go to it; API paths, including
// unknown ones, keep the API's JSON answers (G-9), and paths that merely start with
// "ui" are not the UI's. Without a UI those paths are unknown routes.
func TestUIMount(t *testing.T) {
	with := newHarness(t, openSQLite, func(o *httpapi.Options) { o.UI = uiStub })
	tok := with.ready()
	tests := []struct {
		path   string
		toUI   bool
		status int
	}{
		{"/", true, 200},
		{"/ui", true, 200},
		{"/ui/", true, 200},
		{"/ui/pools/abc", true, 200},
		{"/ui/js/main.js", true, 200},
		{"/uix", false, 404},
		{"/api/v1/ui", false, 404},
		{"/api/v1/ui/pools", false, 404},
		{"/api/v1/nothing-here", false, 404},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := with.call("GET", tt.path, tok, nil)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if got := r.header.Get("X-UI-Path") != ""; got != tt.toUI {
				t.Fatalf("served by the UI: %v, want %v", got, tt.toUI)
			}
			if !tt.toUI {
				with.expectError(r, 404, "Not found", "Resource not found")
			}
		})
	}

	without := newHarness(t, openSQLite)
	for _, p := range []string{"/", "/ui", "/ui/", "/ui/pools"} {
		without.expectError(without.call("GET", p, "", nil), 404, "Not found", "Resource not found")
	}
}

// TestUIPathsSkipAPIChecks: the UI's files load before first run (the UI itself shows
// the first-run page), while the API still answers 409 init_required.
func TestUIPathsSkipAPIChecks(t *testing.T) {
	h := newHarness(t, openSQLite, func(o *httpapi.Options) { o.UI = uiStub })
	if r := h.call("GET", "/ui/init", "", nil); r.status != 200 || r.header.Get("X-UI-Path") != "/ui/init" {
		t.Errorf("GET /ui/init before first run: %d %s", r.status, r.body)
	}
	h.expectError(h.call("GET", api("/login"), "", nil), 409, "init_required", "Missing superuser")
}

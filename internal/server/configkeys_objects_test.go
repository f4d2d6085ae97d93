package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// objectStoreProbes: the [object_store] settings change what the object routes accept.
func objectStoreProbes() map[string]keyProbe {
	return map[string]keyProbe{
		"object_store.cache_runner_tools": func(t *testing.T) {
			// The cache serves its archives without a token; without it the path is the
			// instance API's, which wants an instance token.
			status := func(body string) int {
				a, _ := probeApp(t, controllerURLs+body)
				return serveHTTP(a, http.MethodGet, "/api/v1/metadata/runner-tools/1/actions-runner.tar.gz", "", nil).StatusCode
			}
			if got := status(""); got != http.StatusUnauthorized {
				t.Errorf("without the cache: %d, want 401", got)
			}
			if got := status("[object_store]\ncache_runner_tools = true\n"); got != http.StatusNotFound {
				t.Errorf("with the cache, an archive it does not hold: %d, want 404", got)
			}
		},
		"object_store.max_object_size": func(t *testing.T) {
			// upload announces a 4 KiB object: the limit is checked before the body is read.
			upload := func(body string) int {
				a, _ := probeApp(t, controllerURLs+body)
				req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/api/v1/objects", strings.NewReader(strings.Repeat("x", 4096)))
				req.Header.Set("X-File-Name", "probe.bin")
				req.Header.Set("Authorization", "Bearer "+adminToken(t, a, a.cfg.JWTAuth.Secret))
				rec := httptest.NewRecorder()
				a.handler.ServeHTTP(rec, req)
				return rec.Code
			}
			if got := upload("[object_store]\nmax_object_size = 4095\n"); got != http.StatusRequestEntityTooLarge {
				t.Errorf("a 4096-byte upload with max_object_size = 4095 answers %d, want 413", got)
			}
			if got := upload(""); got == http.StatusRequestEntityTooLarge {
				t.Errorf("a 4096-byte upload answers 413 with the default limit")
			}
		},
	}
}

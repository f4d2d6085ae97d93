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

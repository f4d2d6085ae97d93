package toolcache_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandlerPath sends arbitrary paths to the handler: it never panics, and it serves
// (200) only the cached archive, at a path ending in its own id and name (the handler
// serves under whatever prefix the metadata URL has).
func FuzzHandlerPath(f *testing.F) {
	u := newUpstream(f, []byte("archive"))
	c, st := newCache(f, u, metadataURL, 0)
	ds, err := c.RunnerDownloads(f.Context(), entity)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := st.CreateObjectContent(f.Context(), object("x.txt"), reader("x")); err != nil {
		f.Fatal(err)
	}
	good := ds[0].DownloadURL[len(metadataURL):]
	for _, seed := range []string{good, "/runner-tools/", "/runner-tools/2/x.txt", "/runner-tools/1/../2/x.txt",
		"/runner-tools/-1/a", "/runner-tools/18446744073709551616/a", "/runner-tools/1/" + ds[0].Filename + "/"} {
		f.Add(seed)
	}
	h := c.Handler()
	f.Fuzz(func(t *testing.T, path string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.Path = "/api/v1/metadata" + path
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK && !strings.HasSuffix(path, good) {
			t.Fatalf("%q served %d", path, rec.Code)
		}
	})
}

package toolcache_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
	"github.com/garrison-ci/garrison/internal/toolcache"
	"github.com/garrison-ci/garrison/provider"
)

const metadataURL = "https://garrison.example.com/api/v1/metadata"

// upstream is a forge with one archive per OS, counting the archive downloads.
type upstream struct {
	srv     *httptest.Server
	archive []byte
	sum     string // the checksum the forge lists
	hits    atomic.Int32
	blocked atomic.Bool
}

func newUpstream(t testing.TB, archive []byte) *upstream {
	u := &upstream{archive: archive}
	s := sha256.Sum256(archive)
	u.sum = hex.EncodeToString(s[:])
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		if u.blocked.Load() {
			http.Error(w, "blocked", http.StatusServiceUnavailable)
			return
		}
		if r.Header.Get("Authorization") != "Bearer temp" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write(u.archive)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) RunnerDownloads(context.Context, garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	var out []provider.RunnerApplicationDownload
	for _, os := range []string{"linux", "win"} {
		f := "actions-runner-" + os + "-x64-2.330.0.tar.gz"
		out = append(out, provider.RunnerApplicationDownload{OS: os, Architecture: "x64", Filename: f,
			DownloadURL: u.srv.URL + "/" + f, TempDownloadToken: "temp", SHA256Checksum: u.sum})
	}
	return out, nil
}

// entity is the entity the test forges ignore.
var entity = garrison.Entity{}

func object(name string) garrison.FileObject { return garrison.FileObject{Name: name, Size: 1} }

func reader(s string) io.ReadSeeker { return strings.NewReader(s) }

func newCache(t testing.TB, u *upstream, metadata string, maxSize int64) (*toolcache.Cache, *sqlite.Store) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Controller(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateController(t.Context(), func(c *garrison.Controller) error { c.MetadataURL = metadata; return nil }); err != nil {
		t.Fatal(err)
	}
	c, err := toolcache.New(toolcache.Options{Forge: u, Store: st, Dir: t.TempDir(), MaxSize: maxSize,
		Log: slog.New(slog.DiscardHandler), RetryAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return c, st
}

// TestCacheFetchesOnceAndServes: the first listing fetches every archive once, later
// listings (and the instance side) point at garrison without the forge, and the handler
// serves the archives' bytes.
func TestCacheFetchesOnceAndServes(t *testing.T) {
	u := newUpstream(t, bytes.Repeat([]byte("runner archive "), 50000))
	c, _ := newCache(t, u, metadataURL+"/", 0)
	ctx, e := t.Context(), garrison.Entity{}
	before, err := c.Cached(ctx, e)
	if err != nil || !strings.HasPrefix(before[0].DownloadURL, u.srv.URL) || before[0].TempDownloadToken != "temp" {
		t.Fatalf("before any fetch: %+v, %v", before, err)
	}
	ds, err := c.RunnerDownloads(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.hits.Load(); got != 2 {
		t.Fatalf("%d archive downloads, want 2", got)
	}
	u.blocked.Store(true)
	for _, list := range []func(context.Context, garrison.Entity) ([]provider.RunnerApplicationDownload, error){c.RunnerDownloads, c.Cached} {
		again, err := list(ctx, e)
		if err != nil || len(again) != 2 || again[0] != ds[0] || again[1] != ds[1] {
			t.Fatalf("listing again: %+v, %v; first %+v", again, err, ds)
		}
	}
	if got := u.hits.Load(); got != 2 {
		t.Fatalf("%d archive downloads after listing again, want still 2", got)
	}
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	for _, d := range ds {
		if d.TempDownloadToken != "" || !strings.HasPrefix(d.DownloadURL, metadataURL+toolcache.PathPrefix) {
			t.Fatalf("cached download %+v", d)
		}
		resp, err := http.Get(srv.URL + strings.TrimPrefix(d.DownloadURL, "https://garrison.example.com"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(body, u.archive) || resp.Header.Get("Content-Length") != strconv.Itoa(len(u.archive)) {
			t.Fatalf("GET %s: %d, %d bytes", d.DownloadURL, resp.StatusCode, len(body))
		}
	}
}

// TestCacheKeepsTheForgeURL: an archive that cannot be cached leaves the forge's URL
// and token, and is not tried again before RetryAfter.
func TestCacheKeepsTheForgeURL(t *testing.T) {
	tests := []struct {
		name     string
		metadata string
		maxSize  int64
		edit     func(u *upstream)
		hits     int32 // archive downloads after two listings
	}{
		{"forge down", metadataURL, 0, func(u *upstream) { u.blocked.Store(true) }, 2},
		{"checksum differs", metadataURL, 0, func(u *upstream) { u.sum = strings.Repeat("0", 64) }, 2},
		{"too large", metadataURL, 100, func(*upstream) {}, 2},
		{"no metadata url", "", 0, func(*upstream) {}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUpstream(t, bytes.Repeat([]byte("x"), 1000))
			tt.edit(u)
			c, st := newCache(t, u, tt.metadata, tt.maxSize)
			for range 2 {
				ds, err := c.RunnerDownloads(t.Context(), garrison.Entity{})
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range ds {
					if !strings.HasPrefix(d.DownloadURL, u.srv.URL) || d.TempDownloadToken != "temp" {
						t.Fatalf("download %+v, want the forge's", d)
					}
				}
			}
			if got := u.hits.Load(); got != tt.hits {
				t.Errorf("%d archive downloads, want %d", got, tt.hits)
			}
			if objs, _ := st.ListObjects(t.Context()); len(objs) != 0 {
				t.Errorf("objects stored: %+v", objs)
			}
		})
	}
}

// TestHandlerServesOnlyCachedArchives: other objects, wrong names and bad ids are 404.
func TestHandlerServesOnlyCachedArchives(t *testing.T) {
	u := newUpstream(t, []byte("archive"))
	c, st := newCache(t, u, metadataURL, 0)
	ds, err := c.RunnerDownloads(t.Context(), garrison.Entity{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.CreateObjectContent(t.Context(), garrison.FileObject{Name: "secret.txt", Size: 6}, strings.NewReader("secret"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	cached := strings.TrimPrefix(ds[0].DownloadURL, metadataURL)
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", cached, 200},
		{"HEAD", cached, 200},
		{"POST", cached, 405},
		{"GET", toolcache.PathPrefix + strconv.FormatUint(uint64(other.ID), 10) + "/secret.txt", 404},
		{"GET", cached + "x", 404},
		{"GET", toolcache.PathPrefix + "abc/" + ds[0].Filename, 404},
		{"GET", toolcache.PathPrefix + "99999/" + ds[0].Filename, 404},
		{"GET", "/elsewhere", 404},
	}
	for _, tt := range tests {
		req, _ := http.NewRequestWithContext(t.Context(), tt.method, srv.URL+"/api/v1/metadata"+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
		}
	}
}

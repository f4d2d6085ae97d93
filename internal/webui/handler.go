package webui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Prefix is the path the UI is served under (GARM's, so bookmarks and proxy rules keep
// working).
const Prefix = "/ui/"

// indexFile is the application's page, served for every page route.
const indexFile = "index.html"

//go:embed assets
var embedded embed.FS

// ContentSecurityPolicy is sent with every answer of the UI: everything from the
// server's own origin only, no inline script or style, no frames, no plugins.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

// contentTypes maps the extensions the UI uses to their media types; anything else is
// served as application/octet-stream.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".ico":         "image/x-icon",
	".json":        "application/json",
	".webmanifest": "application/manifest+json",
	".txt":         "text/plain; charset=utf-8",
}

// asset is one file of the UI, read once.
type asset struct {
	body        []byte
	etag        string
	contentType string
}

// Handler serves the UI. It is safe for concurrent use.
type Handler struct {
	files map[string]*asset // path below the assets root, without a leading slash
}

// Assets returns the UI's files as embedded in the binary, index.html at the root.
func Assets() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // "assets" is a valid path: fs.Sub cannot fail
	}
	return sub
}

// New returns a Handler for the UI embedded in the binary.
func New() (*Handler, error) {
	return NewFS(Assets())
}

// NewFS returns a Handler for the UI in fsys, which must hold index.html at its root.
func NewFS(fsys fs.FS) (*Handler, error) {
	h := &Handler{files: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			ct = "application/octet-stream"
		}
		h.files[p] = &asset{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, contentType: ct}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("webui: reading the assets: %w", err)
	}
	if h.files[indexFile] == nil {
		return nil, fmt.Errorf("webui: the assets have no %s", indexFile)
	}
	return h, nil
}

// ServeHTTP serves "/" and "/ui" (redirects to /ui/) and everything below /ui/.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if p == "/" || p == strings.TrimSuffix(Prefix, "/") {
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		return
	}
	rel, ok := strings.CutPrefix(p, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	a := h.lookup(rel)
	if a == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}

// lookup returns the asset for the path below the prefix: the file it names, index.html
// for a page route (no dot in the last segment), or nil.
func (h *Handler) lookup(rel string) *asset {
	if rel == "" {
		return h.files[indexFile]
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == "." || seg == ".." || strings.ContainsAny(seg, "\\\x00") {
			return nil
		}
	}
	if a := h.files[rel]; a != nil {
		return a
	}
	last := rel[strings.LastIndexByte(rel, '/')+1:]
	if strings.Contains(last, ".") {
		return nil // a file that does not exist
	}
	return h.files[indexFile]
}

// setSecurityHeaders sets the headers every answer of the UI carries.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

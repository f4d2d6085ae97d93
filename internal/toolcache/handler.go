package toolcache

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison"
)

// Handler serves GET and HEAD <anything>/runner-tools/<object id>/<file name>: the
// cached archive, with no token (it is public at the forge too). Objects that are not
// cached runner archives, and names that do not match, answer 404.
func (c *Cache) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		o, ok := c.lookup(r)
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", o.FileType)
		h.Set("Content-Length", strconv.FormatInt(o.Size, 10))
		h.Set("Content-Disposition", `attachment; filename="`+o.Name+`"`)
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return
		}
		if err := c.opts.Store.WriteObjectContent(r.Context(), o.ID, w); err != nil {
			c.opts.Log.WarnContext(r.Context(), "sending a cached runner archive", "object", o.ID, "err", err)
		}
	})
}

// lookup finds the cached archive a request names.
func (c *Cache) lookup(r *http.Request) (garrison.FileObject, bool) {
	_, rest, ok := strings.Cut(r.URL.Path, PathPrefix)
	if !ok {
		return garrison.FileObject{}, false
	}
	idText, name, ok := strings.Cut(rest, "/")
	id, err := strconv.ParseUint(idText, 10, 64)
	if !ok || err != nil {
		return garrison.FileObject{}, false
	}
	o, err := c.opts.Store.Object(r.Context(), uint(id))
	if err != nil || o.Name != name || !hasTag(o.Tags, CategoryTag) {
		return garrison.FileObject{}, false
	}
	return o, true
}

package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// DefaultMaxObjectSize bounds object uploads unless Options.MaxObjectSize says otherwise.
const DefaultMaxObjectSize = 1 << 30

// agentToolTag marks garm-agent tools, which the object routes refuse (AM-8).
const agentToolTag = "category=garm-agent"

// sniffBytes is how much of an upload decides its file_type.
const sniffBytes = 512

// registerObjects registers the object store routes (rest-api-2 §7.1) when a directory
// is configured. The content of objects is in the database (every replica serves every
// object); the directory spools uploads and keeps this replica's copies of the objects
// it served, named by ID.
func (s *Server) registerObjects(m *http.ServeMux) {
	if s.opts.ObjectsDir == "" {
		return
	}
	s.tidyObjectFiles(context.Background())
	p := apiPrefix + "/objects"
	s.route(m, "GET "+p, s.handleListObjects)
	s.route(m, "POST "+p, s.handleUploadObject)
	s.route(m, "GET "+p+"/{objectID}", s.handleGetObject)
	s.route(m, "PUT "+p+"/{objectID}", s.handleUpdateObject)
	s.route(m, "DELETE "+p+"/{objectID}", s.handleDeleteObject)
	s.route(m, "GET "+p+"/{objectID}/download", s.handleDownloadObject)
	s.route(m, "HEAD "+p+"/{objectID}/download", s.handleDownloadObject)
}

func (s *Server) maxObjectSize() int64 {
	if s.opts.MaxObjectSize > 0 {
		return s.opts.MaxObjectSize
	}
	return DefaultMaxObjectSize
}

// objectPath is the file of object id. Object files are named by their numeric ID only,
// so no name a client gives ever reaches the file system.
func (s *Server) objectPath(id uint) string {
	return filepath.Join(s.opts.ObjectsDir, strconv.FormatUint(uint64(id), 10))
}

func objectView(o garrison.FileObject) apiv1.FileObject {
	tags := o.Tags
	if tags == nil {
		tags = []string{}
	}
	return apiv1.FileObject{ID: o.ID, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, Name: o.Name, Size: o.Size,
		Tags: tags, FileType: o.FileType, Description: o.Description, SHA256: o.SHA256}
}

// objectID parses the path's {objectID} (C-4).
func objectID(r *http.Request) (uint, error) {
	n, err := strconv.ParseUint(r.PathValue("objectID"), 10, 64)
	if err != nil {
		return 0, invalid("invalid objectID: invalid object ID; must be a number")
	}
	return uint(n), nil
}

// handleUploadObject serves POST /objects: the raw body is streamed to a temporary file
// in the objects directory (hashed and sniffed on the way), then stored in the database
// with its catalogue entry, and the file kept as this replica's copy. Nothing is held in
// memory but a small buffer and one chunk.
func (s *Server) handleUploadObject(w http.ResponseWriter, r *http.Request) error {
	o, err := s.uploadParams(r)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.opts.ObjectsDir, ".upload-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	defer tmp.Close()
	if err := receive(w, r, tmp, &o); err != nil {
		return err
	}
	if o, err = s.store.CreateObjectContent(r.Context(), o, tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		s.log.WarnContext(r.Context(), "closing an uploaded object's file", "object", o.ID, "err", err)
	} else if err := os.Rename(tmp.Name(), s.objectPath(o.ID)); err != nil {
		s.log.WarnContext(r.Context(), "keeping an uploaded object's file", "object", o.ID, "err", err)
	}
	writeOK(w, objectView(o))
	return nil
}

// uploadParams checks the upload headers (§7.3) before any of the body is read.
func (s *Server) uploadParams(r *http.Request) (garrison.FileObject, error) {
	o := garrison.FileObject{Name: r.Header.Get("X-File-Name"), Description: r.Header.Get("X-File-Description"),
		Tags: garrison.ParseObjectTags(r.Header.Get("X-Tags"))}
	switch {
	case o.Name == "":
		return o, invalid("missing X-File-Name header")
	case r.ContentLength < 0:
		return o, invalid("missing Content-Length header in request")
	case r.ContentLength > s.maxObjectSize():
		return o, &http.MaxBytesError{Limit: s.maxObjectSize()}
	case slices.Contains(o.Tags, agentToolTag):
		return o, invalid("GARM agent tools cannot be uploaded via the file objects endpoint. Use POST /tools/garm-agent instead.")
	}
	if err := garrison.ValidateObjectName(o.Name); err != nil {
		return o, err
	}
	o.Size = r.ContentLength
	return o, nil
}

// receive copies exactly o.Size bytes of the body to f, setting o's checksum and type.
func receive(w http.ResponseWriter, r *http.Request, f io.Writer, o *garrison.FileObject) error {
	h := sha256.New()
	sniff := &headBuffer{max: sniffBytes}
	body := http.MaxBytesReader(w, r.Body, o.Size)
	n, err := io.Copy(io.MultiWriter(f, h, sniff), body)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return invalid("the body is longer than its Content-Length")
	case err != nil:
		return invalid("reading the body: %v", err)
	case n != o.Size:
		return invalid("the body ended after %d of %d bytes", n, o.Size)
	}
	o.SHA256, o.FileType = hex.EncodeToString(h.Sum(nil)), http.DetectContentType(sniff.b)
	return nil
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	b   []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// handleListObjects serves GET /objects[?page=&pageSize=&tags=] (§7.4).
func (s *Server) handleListObjects(w http.ResponseWriter, r *http.Request) error {
	all, err := s.store.ListObjects(r.Context())
	if err != nil {
		return err
	}
	q := r.URL.Query()
	want := garrison.ParseObjectTags(q.Get("tags"))
	var hits []garrison.FileObject
	for _, o := range all {
		if hasAll(o.Tags, want) {
			hits = append(hits, o)
		}
	}
	pg := newPage(len(hits), queryInt(q.Get("page"), 0), queryInt(q.Get("pageSize"), 25))
	out := apiv1.FileObjectPage{TotalCount: len(hits), Pages: pg.pages, CurrentPage: pg.current,
		NextPage: pg.next, PreviousPage: pg.prev, Results: []apiv1.FileObject{}}
	for _, o := range hits[pg.from:pg.to] {
		out.Results = append(out.Results, objectView(o))
	}
	writeOK(w, out)
	return nil
}

// hasAll reports whether tags holds every one of want.
func hasAll(tags, want []string) bool {
	for _, t := range want {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	return true
}

// queryInt parses a non-negative paging parameter; anything else is def.
func queryInt(v string, def int) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return def
	}
	return n
}

// page is one page of a list: 1-based, pageSize 0 meaning 20 (§7.4).
type page struct {
	current, pages, from, to int
	next, prev               *int
}

func newPage(total, current, size int) page {
	if current == 0 {
		current = 1
	}
	if size == 0 {
		size = 20
	}
	p := page{current: current, pages: (total + size - 1) / size}
	p.from = min(total, (current-1)*size)
	p.to = min(total, p.from+size)
	if current < p.pages {
		n := current + 1
		p.next = &n
	}
	if current > 1 {
		n := min(current-1, max(p.pages, 1))
		p.prev = &n
	}
	return p
}

func (s *Server) handleGetObject(w http.ResponseWriter, r *http.Request) error {
	id, err := objectID(r)
	if err != nil {
		return err
	}
	o, err := s.store.Object(r.Context(), id)
	if err != nil {
		return prefixed("failed to get file object: ", err)
	}
	writeOK(w, objectView(o))
	return nil
}

// handleUpdateObject serves PUT /objects/{objectID}: name, description and tags.
func (s *Server) handleUpdateObject(w http.ResponseWriter, r *http.Request) error {
	id, err := objectID(r)
	if err != nil {
		return err
	}
	var p apiv1.UpdateFileObjectParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	if p.Name != nil && *p.Name == "" {
		return invalid("name cannot be empty")
	}
	errAgent := invalid("cannot update garm-agent tools via object storage API")
	if slices.Contains(garrison.NormalizeObjectTags(p.Tags), agentToolTag) {
		return errAgent
	}
	o, err := s.store.UpdateObject(r.Context(), id, func(o *garrison.FileObject) error {
		if slices.Contains(o.Tags, agentToolTag) {
			return errAgent
		}
		setIf(&o.Name, p.Name)
		setIf(&o.Description, p.Description)
		if p.Tags != nil {
			o.Tags = p.Tags
		}
		return nil
	})
	if garrison.CodeOf(err) == garrison.ENotFound {
		return prefixed("failed to get file object: ", err)
	}
	if err != nil {
		return err
	}
	writeOK(w, objectView(o))
	return nil
}

// handleDeleteObject serves DELETE /objects/{objectID}: 204, also for unknown ids.
func (s *Server) handleDeleteObject(w http.ResponseWriter, r *http.Request) error {
	id, err := objectID(r)
	if err != nil {
		return err
	}
	if err := s.store.DeleteObject(r.Context(), id); err != nil {
		return err
	}
	if err := os.Remove(s.objectPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.WarnContext(r.Context(), "removing the file of a deleted object", "object", id, "err", err)
	}
	writeNoContent(w)
	return nil
}

// handleDownloadObject serves GET and HEAD /objects/{objectID}/download, streaming this
// replica's copy of the object (made from the database first if it has none).
func (s *Server) handleDownloadObject(w http.ResponseWriter, r *http.Request) error {
	id, err := objectID(r)
	if err != nil {
		return err
	}
	o, err := s.store.Object(r.Context(), id)
	if err != nil {
		return prefixed("failed to get file object: ", err)
	}
	f, err := s.openObjectFile(r.Context(), o)
	if err != nil {
		return err
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", o.FileType)
	// Names hold no quotes, backslashes or control characters (ValidateObjectName).
	h.Set("Content-Disposition", `attachment; filename="`+o.Name+`"`)
	h.Set("Content-Length", strconv.FormatInt(o.Size, 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if _, err := io.Copy(w, f); err != nil {
		s.log.WarnContext(r.Context(), "sending an object", "object", id, "err", err)
	}
	return nil
}

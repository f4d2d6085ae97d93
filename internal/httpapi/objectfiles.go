package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison"
)

// openObjectFile opens this replica's copy of object o, first copying the object's
// content from the database into the objects directory when there is none (another
// replica took the upload, or this one restarted on a new disk). The copy is checked
// against the recorded checksum before it is kept.
func (s *Server) openObjectFile(ctx context.Context, o garrison.FileObject) (*os.File, error) {
	path := s.objectPath(o.ID)
	f, err := os.Open(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return f, err
	}
	tmp, err := os.CreateTemp(s.opts.ObjectsDir, ".upload-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	defer tmp.Close()
	h := sha256.New()
	if err := s.store.WriteObjectContent(ctx, o.ID, io.MultiWriter(tmp, h)); err != nil {
		return nil, prefixed("failed to get file object: ", err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); o.SHA256 != "" && sum != o.SHA256 {
		return nil, fmt.Errorf("object %d: the stored content has checksum %s, not %s", o.ID, sum, o.SHA256)
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// tidyObjectFiles runs when the server starts: it removes the temporary files of uploads
// and copies a previous run did not finish, and the copies of objects deleted since (on
// any replica); an object stored before its content was kept in the database gets it
// from its file here.
func (s *Server) tidyObjectFiles(ctx context.Context) {
	entries, err := os.ReadDir(s.opts.ObjectsDir)
	if err != nil {
		s.log.Warn("reading the objects directory", "dir", s.opts.ObjectsDir, "err", err)
		return
	}
	for _, e := range entries {
		path := filepath.Join(s.opts.ObjectsDir, e.Name())
		id, err := strconv.ParseUint(e.Name(), 10, 64)
		switch {
		case err != nil && strings.HasPrefix(e.Name(), ".upload-"):
			s.removeObjectFile(path)
		case err != nil || e.IsDir():
			continue // not ours
		default:
			s.tidyObjectFile(ctx, uint(id), path)
		}
	}
}

// tidyObjectFile keeps the copy of object id at path, moving its content into the
// database if it is not there yet, or removes it when the object is gone.
func (s *Server) tidyObjectFile(ctx context.Context, id uint, path string) {
	has, err := s.store.HasObjectContent(ctx, id)
	switch {
	case garrison.CodeOf(err) == garrison.ENotFound:
		s.removeObjectFile(path)
	case err != nil:
		s.log.Warn("checking an object's content", "object", id, "err", err)
	case !has:
		f, err := os.Open(path)
		if err != nil {
			s.log.Warn("opening an object's file", "object", id, "err", err)
			return
		}
		defer f.Close()
		if err := s.store.SetObjectContent(ctx, id, f); err != nil {
			s.log.Warn("copying an object's file into the database", "object", id, "err", err)
		}
	}
}

func (s *Server) removeObjectFile(path string) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn("removing an object file", "file", path, "err", err)
	}
}

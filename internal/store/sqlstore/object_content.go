package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// CreateObjectContent records a new object and its content, read from content (exactly
// o.Size bytes), in one transaction; a transient failure rewinds content and starts
// over. ErrInvalid for a bad name or content of another size.
func (s *Store) CreateObjectContent(ctx context.Context, o garrison.FileObject, content io.ReadSeeker) (garrison.FileObject, error) {
	buf := make([]byte, store.ObjectChunkSize)
	return s.createObject(ctx, o, func(c conn, o garrison.FileObject) error {
		return s.writeChunks(ctx, c, o, content, buf)
	})
}

// writeChunks stores content as o's chunk rows, from its start.
func (s *Store) writeChunks(ctx context.Context, c conn, o garrison.FileObject, content io.ReadSeeker, buf []byte) error {
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding object content: %w", err)
	}
	var total int64
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(content, buf)
		if n > 0 {
			total += int64(n)
			if total > o.Size {
				break
			}
			if _, err := c.exec(ctx, `INSERT INTO object_chunks (object_id, seq, data) VALUES (?, ?, ?)`,
				int64(o.ID), seq, buf[:n]); err != nil {
				return s.wrapErr("store object content", err)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading object content: %w", err)
		}
	}
	if total != o.Size {
		return garrison.Errorf(garrison.EInvalid, "object content is not %d bytes long", o.Size)
	}
	return nil
}

// SetObjectContent replaces the content of an existing object (one stored before its
// content was kept in the database); the content must match the recorded size.
func (s *Store) SetObjectContent(ctx context.Context, id uint, content io.ReadSeeker) error {
	buf := make([]byte, store.ObjectChunkSize)
	return s.write(ctx, func(c conn) error {
		o, err := scanObject(c.row(ctx, c.forUpdate(`SELECT `+objectCols+` FROM objects WHERE id = ?`), int64(id)))
		if err != nil {
			return s.noRows(err, "read object", "could not find file object with ID: %d", id)
		}
		if _, err := c.exec(ctx, `DELETE FROM object_chunks WHERE object_id = ?`, int64(id)); err != nil {
			return s.wrapErr("replace object content", err)
		}
		return s.writeChunks(ctx, c, o, content, buf)
	})
}

// HasObjectContent reports whether the database holds the content of object id (objects
// stored before migration 0017 may have theirs only in a replica's files). An empty
// object always has its content.
func (s *Store) HasObjectContent(ctx context.Context, id uint) (bool, error) {
	o, err := s.Object(ctx, id)
	if err != nil {
		return false, err
	}
	if o.Size == 0 {
		return true, nil
	}
	return s.reader().exists(ctx, `SELECT 1 FROM object_chunks WHERE object_id = ?`, int64(id))
}

// WriteObjectContent copies the content of object id to w, one chunk row at a time, so
// that at most one chunk is held in memory. ENotFound when the object is unknown or its
// content is not in the database; an error when a chunk is missing or the content is not
// the recorded size.
func (s *Store) WriteObjectContent(ctx context.Context, id uint, w io.Writer) error {
	o, err := s.Object(ctx, id)
	if err != nil {
		return err
	}
	var written int64
	for seq := 0; written < o.Size; seq++ {
		var data []byte
		err := s.reader().row(ctx, `SELECT data FROM object_chunks WHERE object_id = ? AND seq = ?`, int64(id), seq).Scan(&data)
		switch {
		case errors.Is(err, sql.ErrNoRows) && seq == 0:
			return garrison.Errorf(garrison.ENotFound, "the content of file object %d is not in the database", id)
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("object %d: chunk %d is missing", id, seq)
		case err != nil:
			return s.wrap("read object content", err)
		}
		if len(data) == 0 || written+int64(len(data)) > o.Size {
			return fmt.Errorf("object %d: chunk %d does not fit its size %d", id, seq, o.Size)
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
		written += int64(len(data))
	}
	return nil
}

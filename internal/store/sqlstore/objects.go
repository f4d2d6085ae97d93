package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/garrison-ci/garrison"
)

const objectCols = `id, name, description, size, sha256, file_type, tags, created_at, updated_at`

func scanObject(sc interface{ Scan(...any) error }) (garrison.FileObject, error) {
	var (
		o    garrison.FileObject
		tags string
	)
	err := sc.Scan(&o.ID, &o.Name, &o.Description, &o.Size, &o.SHA256, &o.FileType, &tags, utc(&o.CreatedAt), utc(&o.UpdatedAt))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal([]byte(tags), &o.Tags); err != nil {
		return o, err
	}
	if o.Tags == nil {
		o.Tags = []string{}
	}
	return o, nil
}

func objectTags(tags []string) (string, error) {
	b, err := json.Marshal(garrison.NormalizeObjectTags(tags))
	return string(b), err
}

// CreateObject records a new object with a new ID; ErrInvalid for a bad name.
func (s *Store) CreateObject(ctx context.Context, o garrison.FileObject) (garrison.FileObject, error) {
	return s.createObject(ctx, o, nil)
}

// createObject records a new object and then, in the same transaction, runs more (its
// content's rows), when set.
func (s *Store) createObject(ctx context.Context, o garrison.FileObject, more func(c conn, o garrison.FileObject) error) (garrison.FileObject, error) {
	if err := garrison.ValidateObjectName(o.Name); err != nil {
		return garrison.FileObject{}, err
	}
	tags, err := objectTags(o.Tags)
	if err != nil {
		return garrison.FileObject{}, err
	}
	o.Tags = garrison.NormalizeObjectTags(o.Tags)
	o.CreatedAt = now()
	o.UpdatedAt = o.CreatedAt
	err = s.write(ctx, func(c conn) error {
		err := c.row(ctx, `INSERT INTO objects (name, description, size, sha256, file_type, tags, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			o.Name, o.Description, o.Size, o.SHA256, o.FileType, tags, o.CreatedAt, o.UpdatedAt).Scan(&o.ID)
		if err != nil || more == nil {
			return s.wrapErr("create object", err)
		}
		return more(c, o)
	})
	if err != nil {
		return garrison.FileObject{}, err
	}
	return o, nil
}

// Object returns the object with the given ID.
func (s *Store) Object(ctx context.Context, id uint) (garrison.FileObject, error) {
	o, err := scanObject(s.reader().row(ctx, `SELECT `+objectCols+` FROM objects WHERE id = ?`, int64(id)))
	if err != nil {
		return o, s.noRows(err, "read object", "could not find file object with ID: %d", id)
	}
	return o, nil
}

// ListObjects lists every object, newest first.
func (s *Store) ListObjects(ctx context.Context) ([]garrison.FileObject, error) {
	rows, err := s.reader().query(ctx, `SELECT `+objectCols+` FROM objects ORDER BY id DESC`)
	if err != nil {
		return nil, s.wrap("list objects", err)
	}
	return collect(rows, scanObject, s.wrap)
}

// UpdateObject runs fn on the object under a write lock and stores its name, description
// and tags. ID, size, checksum, type and CreatedAt cannot change.
func (s *Store) UpdateObject(ctx context.Context, id uint, fn func(*garrison.FileObject) error) (garrison.FileObject, error) {
	var out garrison.FileObject
	err := s.write(ctx, func(c conn) error {
		cur, err := scanObject(c.row(ctx, c.forUpdate(`SELECT `+objectCols+` FROM objects WHERE id = ?`), int64(id)))
		if err != nil {
			return s.noRows(err, "read object", "could not find file object with ID: %d", id)
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		if err := garrison.ValidateObjectName(next.Name); err != nil {
			return err
		}
		tags, err := objectTags(next.Tags)
		if err != nil {
			return err
		}
		next.ID, next.Size, next.SHA256, next.FileType, next.CreatedAt = cur.ID, cur.Size, cur.SHA256, cur.FileType, cur.CreatedAt
		next.Tags, next.UpdatedAt = garrison.NormalizeObjectTags(next.Tags), now()
		_, err = c.exec(ctx, `UPDATE objects SET name = ?, description = ?, tags = ?, updated_at = ? WHERE id = ?`,
			next.Name, next.Description, tags, next.UpdatedAt, int64(id))
		if err != nil {
			return s.wrap("update object", err)
		}
		out = next
		return nil
	})
	return out, err
}

// DeleteObject removes the object's record and content; nil if missing.
func (s *Store) DeleteObject(ctx context.Context, id uint) error {
	return s.write(ctx, func(c conn) error {
		if _, err := c.exec(ctx, `DELETE FROM object_chunks WHERE object_id = ?`, int64(id)); err != nil {
			return s.wrap("delete object content", err)
		}
		_, err := c.exec(ctx, `DELETE FROM objects WHERE id = ?`, int64(id))
		return s.wrapErr("delete object", err)
	})
}

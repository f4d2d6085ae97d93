package sqlstore

import (
	"context"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// importProxies creates the proxies with their ids (pools refer to them by id).
func (s *Store) importProxies(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, p := range snap.Proxies {
		if err := p.Validate(); err != nil {
			return invalid("imported proxy %s: %s", p.Name, garrison.MessageOf(err))
		}
		pw, err := s.seal([]byte(p.Password))
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `INSERT INTO proxies (id, name, description, http_proxy, https_proxy, no_proxy, username,
			password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			int64(p.ID), p.Name, p.Description, p.HTTPProxy, p.HTTPSProxy, p.NoProxy, p.Username, pw,
			stamp(p.CreatedAt, at), stamp(p.UpdatedAt, at))
		if s.d.unique(err) {
			return conflict("proxy %d (%s) already exists", p.ID, p.Name)
		}
		if err != nil {
			return s.wrap("import proxy", err)
		}
	}
	if len(snap.Proxies) == 0 {
		return nil
	}
	return s.syncSequence(ctx, c, "proxies", "id")
}

// importObjects creates the objects with their ids and content.
func (s *Store) importObjects(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	buf := make([]byte, store.ObjectChunkSize)
	for _, im := range snap.Objects {
		o := im.Object
		if err := garrison.ValidateObjectName(o.Name); err != nil {
			return invalid("imported object %d: %s", o.ID, garrison.MessageOf(err))
		}
		tags, err := objectTags(o.Tags)
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `INSERT INTO objects (id, name, description, size, sha256, file_type, tags, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, int64(o.ID), o.Name, o.Description, o.Size, o.SHA256, o.FileType, tags,
			stamp(o.CreatedAt, at), stamp(o.UpdatedAt, at))
		if s.d.unique(err) {
			return conflict("object %d already exists", o.ID)
		}
		if err != nil {
			return s.wrap("import object", err)
		}
		if err := s.writeChunks(ctx, c, o, im.Content, buf); err != nil {
			return err
		}
	}
	if len(snap.Objects) == 0 {
		return nil
	}
	return s.syncSequence(ctx, c, "objects", "id")
}

package sqlstore

import (
	"context"
	"strings"

	"github.com/garrison-ci/garrison"
)

// ensureTags returns the global tags for the given names in the given order, creating the
// missing ones. Names are normalised first (trimmed, deduplicated case-insensitively); a
// tag keeps the spelling it was first created with.
func (s *Store) ensureTags(ctx context.Context, c conn, tags []garrison.Tag) ([]garrison.Tag, error) {
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Name
	}
	names = garrison.NormalizeTags(names)
	out := make([]garrison.Tag, 0, len(names))
	for _, name := range names {
		_, err := c.exec(ctx, `INSERT INTO tags (id, name) VALUES (?, ?) ON CONFLICT DO NOTHING`, newID(), name)
		if err != nil {
			return nil, s.wrap("create tag", err)
		}
		var t garrison.Tag
		if err := c.row(ctx, `SELECT id, name FROM tags WHERE lower(name) = lower(?)`, name).Scan(&t.ID, &t.Name); err != nil {
			return nil, s.wrap("read tag", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// setPoolTags replaces the tags of a pool, keeping their order.
func (s *Store) setPoolTags(ctx context.Context, c conn, poolID string, tags []garrison.Tag) ([]garrison.Tag, error) {
	tags, err := s.ensureTags(ctx, c, tags)
	if err != nil {
		return nil, err
	}
	if _, err := c.exec(ctx, `DELETE FROM pool_tags WHERE pool_id = ?`, poolID); err != nil {
		return nil, s.wrap("clear pool tags", err)
	}
	for i, t := range tags {
		_, err := c.exec(ctx, `INSERT INTO pool_tags (pool_id, tag_id, position) VALUES (?, ?, ?)`, poolID, t.ID, i)
		if err != nil {
			return nil, s.wrap("add pool tag", err)
		}
	}
	return tags, nil
}

// poolTags loads the tags of the pools selected by where (a condition on pools aliased p)
// in one query, keyed by pool ID and in creation order.
func (s *Store) poolTags(ctx context.Context, c conn, where string, args ...any) (map[string][]garrison.Tag, error) {
	rows, err := c.query(ctx, `SELECT pt.pool_id, t.id, t.name FROM pool_tags pt
		JOIN tags t ON t.id = pt.tag_id JOIN pools p ON p.id = pt.pool_id
		WHERE `+where+` ORDER BY pt.pool_id, pt.position`, args...)
	if err != nil {
		return nil, s.wrap("read pool tags", err)
	}
	defer rows.Close()
	out := map[string][]garrison.Tag{}
	for rows.Next() {
		var (
			poolID string
			t      garrison.Tag
		)
		if err := rows.Scan(&poolID, &t.ID, &t.Name); err != nil {
			return nil, s.wrap("scan pool tag", err)
		}
		out[poolID] = append(out[poolID], t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read pool tags", err)
	}
	return out, nil
}

// sameTags reports whether a and b name the same tags in the same order.
func sameTags(a, b []garrison.Tag) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i].Name, b[i].Name) {
			return false
		}
	}
	return true
}

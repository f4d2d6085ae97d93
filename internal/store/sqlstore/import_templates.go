package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// importTemplates writes the snapshot's templates with their IDs. A system template
// takes the place of the existing system template of its forge and OS type (garrison
// seeds them at start), so pools that used that one follow it to the imported ID.
func (s *Store) importTemplates(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, t := range snap.Templates {
		if err := t.Validate(); err != nil {
			return invalid("imported template %q: %s", t.Name, garrison.MessageOf(err))
		}
		if t.ID == 0 || t.Owner == "" {
			return invalid("imported template %q has no id or no owner", t.Name)
		}
		t.CreatedAt, t.UpdatedAt = stamp(t.CreatedAt, at), stamp(t.UpdatedAt, at)
		var curID int64
		err := sql.ErrNoRows
		if t.IsSystem() {
			err = c.row(ctx, c.forUpdate(`SELECT id FROM templates WHERE owner = ? AND forge_type = ? AND os_type = ?
				ORDER BY id LIMIT 1`), garrison.SystemOwner, t.ForgeType, t.OSType).Scan(&curID)
		}
		switch {
		case errors.Is(err, sql.ErrNoRows):
			err = s.insertTemplate(ctx, c, &t)
		case err != nil:
			err = s.wrap("read template", err)
		default:
			err = s.replaceTemplate(ctx, c, curID, t)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// replaceTemplate gives the template with ID old the values and ID of t, moving the pools
// that use it along.
func (s *Store) replaceTemplate(ctx context.Context, c conn, old int64, t garrison.Template) error {
	_, err := c.exec(ctx, `UPDATE templates SET id = ?, name = ?, description = ?, data = ?, created_at = ?,
		updated_at = ? WHERE id = ?`, int64(t.ID), t.Name, t.Description, t.Data, t.CreatedAt, t.UpdatedAt, old)
	if s.d.unique(err) {
		return conflict("imported template %d (%s) conflicts with an existing template's id or name", t.ID, t.Name)
	}
	if err != nil {
		return s.wrap("import template", err)
	}
	_, err = c.exec(ctx, `UPDATE pools SET template_id = ? WHERE template_id = ?`, int64(t.ID), old)
	return s.wrapErr("import template", err)
}

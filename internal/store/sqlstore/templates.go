package sqlstore

import (
	"context"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

const templateCols = `id, name, description, os_type, forge_type, owner, data, created_at, updated_at`

func scanTemplate(sc interface{ Scan(...any) error }) (garrison.Template, error) {
	var t garrison.Template
	err := sc.Scan(&t.ID, &t.Name, &t.Description, &t.OSType, &t.ForgeType, &t.Owner, &t.Data,
		utc(&t.CreatedAt), utc(&t.UpdatedAt))
	return t, err
}

// CreateTemplate validates and stores a new template with a new ID; ErrConflict if the
// name is taken (case-insensitively, by any owner).
func (s *Store) CreateTemplate(ctx context.Context, t garrison.Template) (garrison.Template, error) {
	if err := t.Validate(); err != nil {
		return garrison.Template{}, err
	}
	if strings.TrimSpace(t.Owner) == "" {
		return garrison.Template{}, invalid("template %q has no owner", t.Name)
	}
	t.CreatedAt = now()
	t.UpdatedAt = t.CreatedAt
	err := s.write(ctx, func(c conn) error {
		return s.insertTemplate(ctx, c, &t)
	})
	if err != nil {
		return garrison.Template{}, err
	}
	return t, nil
}

// insertTemplate inserts t, with its ID when it has one, and sets t.ID.
func (s *Store) insertTemplate(ctx context.Context, c conn, t *garrison.Template) error {
	var err error
	if t.ID == 0 {
		err = c.row(ctx, `INSERT INTO templates (name, description, os_type, forge_type, owner, data,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			t.Name, t.Description, t.OSType, t.ForgeType, t.Owner, t.Data, t.CreatedAt, t.UpdatedAt).Scan(&t.ID)
	} else {
		_, err = c.exec(ctx, `INSERT INTO templates (`+templateCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			int64(t.ID), t.Name, t.Description, t.OSType, t.ForgeType, t.Owner, t.Data, t.CreatedAt, t.UpdatedAt)
	}
	if s.d.unique(err) {
		return conflict("a template name already exists with the specified name")
	}
	return s.wrapErr("create template", err)
}

// Template returns the template with the given ID.
func (s *Store) Template(ctx context.Context, id uint) (garrison.Template, error) {
	t, err := scanTemplate(s.reader().row(ctx, `SELECT `+templateCols+` FROM templates WHERE id = ?`, int64(id)))
	if err != nil {
		return t, s.noRows(err, "read template", "template %d not found", id)
	}
	return t, nil
}

// ListTemplates lists the templates matching f in ID order.
func (s *Store) ListTemplates(ctx context.Context, f store.TemplateFilter) ([]garrison.Template, error) {
	rows, err := s.reader().query(ctx, `SELECT `+templateCols+` FROM templates
		WHERE (? = '' OR os_type = ?) AND (? = '' OR forge_type = ?) AND (? = '' OR owner = ?)
		ORDER BY id`,
		f.OSType, f.OSType, f.ForgeType, f.ForgeType, f.Owner, f.Owner)
	if err != nil {
		return nil, s.wrap("list templates", err)
	}
	ts, err := collect(rows, scanTemplate, s.wrap)
	if err != nil || f.PartialName == "" {
		return ts, err
	}
	// The substring match is done here: LIKE would read % and _ in the name as wildcards.
	part := strings.ToLower(f.PartialName)
	kept := ts[:0]
	for _, t := range ts {
		if strings.Contains(strings.ToLower(t.Name), part) {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// UpdateTemplate runs fn on the template under a write lock and stores the result. ID,
// owner and CreatedAt cannot change.
func (s *Store) UpdateTemplate(ctx context.Context, id uint, fn func(*garrison.Template) error) (garrison.Template, error) {
	var out garrison.Template
	err := s.write(ctx, func(c conn) error {
		cur, err := scanTemplate(c.row(ctx, c.forUpdate(`SELECT `+templateCols+` FROM templates WHERE id = ?`), int64(id)))
		if err != nil {
			return s.noRows(err, "read template", "template %d not found", id)
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		next.ID, next.Owner, next.CreatedAt, next.UpdatedAt = cur.ID, cur.Owner, cur.CreatedAt, now()
		if err := next.Validate(); err != nil {
			return err
		}
		_, err = c.exec(ctx, `UPDATE templates SET name = ?, description = ?, os_type = ?, forge_type = ?,
			data = ?, updated_at = ? WHERE id = ?`,
			next.Name, next.Description, next.OSType, next.ForgeType, next.Data, next.UpdatedAt, int64(id))
		if s.d.unique(err) {
			return conflict("a template name already exists with the specified name")
		}
		if err != nil {
			return s.wrap("update template", err)
		}
		out = next
		return nil
	})
	return out, err
}

// DeleteTemplate removes the template; ErrInvalid while pools use it; nil if missing.
func (s *Store) DeleteTemplate(ctx context.Context, id uint) error {
	return s.write(ctx, func(c conn) error {
		ok, err := c.exists(ctx, c.forUpdate(`SELECT 1 FROM templates WHERE id = ?`), int64(id))
		if err != nil || !ok {
			return err
		}
		// Scale sets, when garrison stores them, must be checked here too.
		used, err := c.exists(ctx, `SELECT 1 FROM pools WHERE template_id = ? LIMIT 1`, int64(id))
		if err != nil {
			return err
		}
		if used {
			return invalid("cannot delete template while in use by pools or scale sets")
		}
		_, err = c.exec(ctx, `DELETE FROM templates WHERE id = ?`, int64(id))
		return s.wrapErr("delete template", err)
	})
}

// SeedTemplates stores ts, in order, only if there is no template at all, and reports
// whether it did. Replicas starting together seed once.
func (s *Store) SeedTemplates(ctx context.Context, ts []garrison.Template) (bool, error) {
	seeded := false
	err := s.write(ctx, func(c conn) error {
		if err := c.lock(ctx, lockAdmin); err != nil {
			return err
		}
		has, err := c.exists(ctx, `SELECT 1 FROM templates LIMIT 1`)
		if err != nil || has {
			return err
		}
		at := now()
		for _, t := range ts {
			if err := t.Validate(); err != nil {
				return err
			}
			t.ID, t.CreatedAt, t.UpdatedAt = 0, at, at
			if err := s.insertTemplate(ctx, c, &t); err != nil {
				return err
			}
		}
		seeded = true
		return nil
	})
	return seeded, err
}

// checkPoolTemplate refuses a pool that names a template that does not exist. The row is
// locked so that a concurrent DeleteTemplate waits for the pool write.
func (s *Store) checkPoolTemplate(ctx context.Context, c conn, id uint) error {
	if id == 0 {
		return nil
	}
	ok, err := c.exists(ctx, c.forUpdate(`SELECT 1 FROM templates WHERE id = ?`), int64(id))
	if err == nil && !ok {
		err = notFound("template %d not found", id)
	}
	return err
}

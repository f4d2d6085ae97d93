package sqlstore

import (
	"bytes"
	"context"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// poolSelect reads pools (aliased p) with their entity's type; append a WHERE clause.
const poolSelect = `SELECT p.id, p.entity_id, e.type, p.provider_name, p.runner_prefix, p.max_runners,
	p.min_idle_runners, p.image, p.flavor, p.os_type, p.os_arch, p.enabled, p.runner_bootstrap_timeout,
	p.extra_specs, p.runner_group, p.priority, p.enable_shell, p.generation, p.template_id, p.proxy_id,
	@ts(p.created_at), @ts(p.updated_at) FROM pools p JOIN entities e ON e.id = p.entity_id`

func scanPool(sc interface{ Scan(...any) error }) (garrison.Pool, error) {
	var p garrison.Pool
	err := sc.Scan(&p.ID, &p.EntityID, &p.EntityType, &p.ProviderName, &p.RunnerPrefix, &p.MaxRunners,
		&p.MinIdleRunners, &p.Image, &p.Flavor, &p.OSType, &p.OSArch, &p.Enabled, &p.RunnerBootstrapTimeout,
		rawJSON{&p.ExtraSpecs}, &p.RunnerGroup, &p.Priority, &p.EnableShell, &p.Generation, &p.TemplateID,
		&p.ProxyID, utc(&p.CreatedAt), utc(&p.UpdatedAt))
	return p, err
}

// poolArgs are the values of the pool's own columns, in poolColumns order.
const poolColumns = `provider_name, runner_prefix, max_runners, min_idle_runners, image, flavor,
	os_type, os_arch, enabled, runner_bootstrap_timeout, extra_specs, runner_group, priority, enable_shell,
	generation, template_id, proxy_id, updated_at`

func poolArgs(p garrison.Pool) []any {
	return []any{p.ProviderName, p.RunnerPrefix, int64(p.MaxRunners), int64(p.MinIdleRunners), p.Image,
		p.Flavor, p.OSType, p.OSArch, p.Enabled, int64(p.RunnerBootstrapTimeout), rawJSONArg(p.ExtraSpecs),
		p.RunnerGroup, int64(p.Priority), p.EnableShell, int64(p.Generation), int64(p.TemplateID),
		int64(p.ProxyID), p.UpdatedAt}
}

// CreatePool validates and stores a new pool with a new ID, creating its tags as needed;
// ErrNotFound if the entity does not exist.
func (s *Store) CreatePool(ctx context.Context, p garrison.Pool) (garrison.Pool, error) {
	p.Tags = garrison.TagsFromNames(p.TagNames())
	if err := p.Validate(); err != nil {
		return garrison.Pool{}, err
	}
	p.ID = newID()
	p.CreatedAt = now()
	p.UpdatedAt = p.CreatedAt
	err := s.write(ctx, func(c conn) error {
		err := c.row(ctx, c.forUpdate(`SELECT type FROM entities WHERE id = ?`), p.EntityID).Scan(&p.EntityType)
		if err != nil {
			return s.noRows(err, "read entity", "entity %s not found", p.EntityID)
		}
		if err := s.checkPoolTemplate(ctx, c, p.TemplateID); err != nil {
			return err
		}
		args := append([]any{p.ID, p.EntityID, p.CreatedAt}, poolArgs(p)...)
		_, err = c.exec(ctx, `INSERT INTO pools (id, entity_id, created_at, `+poolColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
		if s.d.foreignKey(err) {
			return notFound("entity %s not found", p.EntityID)
		}
		if err != nil {
			return s.wrap("create pool", err)
		}
		p.Tags, err = s.setPoolTags(ctx, c, p.ID, p.Tags)
		return err
	})
	if err != nil {
		return garrison.Pool{}, err
	}
	return p, nil
}

// Pool returns the pool with the given ID and its tags.
func (s *Store) Pool(ctx context.Context, id string) (garrison.Pool, error) {
	var out garrison.Pool
	err := s.read(ctx, func(c conn) error {
		var err error
		out, err = s.poolTx(ctx, c, id, false)
		return err
	})
	return out, err
}

// poolTx reads one pool and its tags, locking the row when lock is set.
func (s *Store) poolTx(ctx context.Context, c conn, id string, lock bool) (garrison.Pool, error) {
	q := poolSelect + ` WHERE p.id = ?`
	if lock {
		q = c.forUpdate(q, "p")
	}
	p, err := scanPool(c.row(ctx, q, id))
	if err != nil {
		return p, s.noRows(err, "read pool", "pool %s not found", id)
	}
	tags, err := s.poolTags(ctx, c, `p.id = ?`, id)
	if err != nil {
		return p, err
	}
	p.Tags = nonNil(tags[id])
	return p, nil
}

// ListPools lists the pools matching f with their tags, in creation order.
func (s *Store) ListPools(ctx context.Context, f store.PoolFilter) ([]garrison.Pool, error) {
	var out []garrison.Pool
	err := s.read(ctx, func(c conn) error {
		var w filter
		w.when(f.EntityID != "", `p.entity_id = ?`, f.EntityID)
		rows, err := c.query(ctx, poolSelect+w.where()+` ORDER BY p.created_at, p.id`, w.args...)
		if err != nil {
			return s.wrap("list pools", err)
		}
		if out, err = collect(rows, scanPool, s.wrap); err != nil {
			return err
		}
		tags, err := s.poolTags(ctx, c, w.and(), w.args...)
		for i := range out {
			out[i].Tags = nonNil(tags[out[i].ID])
		}
		return err
	})
	return out, err
}

// UpdatePool runs fn on the pool under a write lock, validates and stores the result. ID,
// EntityID and CreatedAt cannot change. Unless fn sets Generation itself, it is bumped
// when the runner definition (image, flavor, OS, extra specs, runner group, shell,
// template or proxy) changes.
func (s *Store) UpdatePool(ctx context.Context, id string, fn func(*garrison.Pool) error) (garrison.Pool, error) {
	var out garrison.Pool
	err := s.write(ctx, func(c conn) error {
		cur, err := s.poolTx(ctx, c, id, true)
		if err != nil {
			return err
		}
		next := cur
		next.Tags = append([]garrison.Tag(nil), cur.Tags...)
		if err := fn(&next); err != nil {
			return err
		}
		next.ID, next.EntityID, next.EntityType, next.CreatedAt, next.UpdatedAt =
			cur.ID, cur.EntityID, cur.EntityType, cur.CreatedAt, now()
		next.Tags = garrison.TagsFromNames(next.TagNames())
		if err := next.Validate(); err != nil {
			return err
		}
		if next.Generation == cur.Generation && definitionChanged(cur, next) {
			next.Generation++
		}
		if out, err = s.storePool(ctx, c, cur, next); err != nil {
			return err
		}
		return nil
	})
	return out, err
}

func (s *Store) storePool(ctx context.Context, c conn, cur, next garrison.Pool) (garrison.Pool, error) {
	if next.TemplateID != cur.TemplateID {
		if err := s.checkPoolTemplate(ctx, c, next.TemplateID); err != nil {
			return next, err
		}
	}
	_, err := c.exec(ctx, `UPDATE pools SET (`+poolColumns+`) =
		(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE id = ?`, append(poolArgs(next), next.ID)...)
	if err != nil {
		return next, s.wrap("update pool", err)
	}
	if sameTags(cur.Tags, next.Tags) {
		next.Tags = cur.Tags
		return next, nil
	}
	next.Tags, err = s.setPoolTags(ctx, c, next.ID, next.Tags)
	return next, err
}

// definitionChanged reports whether instances made from a would differ from ones made
// from b.
func definitionChanged(a, b garrison.Pool) bool {
	return a.Image != b.Image || a.Flavor != b.Flavor || a.OSType != b.OSType || a.OSArch != b.OSArch ||
		!bytes.Equal(a.ExtraSpecs, b.ExtraSpecs) || a.RunnerGroup != b.RunnerGroup ||
		a.EnableShell != b.EnableShell || a.TemplateID != b.TemplateID || a.ProxyID != b.ProxyID
}

// DeletePool removes the pool with its history (instances kept as deleted); ErrInvalid
// while it has other instances; ErrNotFound if missing.
func (s *Store) DeletePool(ctx context.Context, id string) error {
	return s.write(ctx, func(c conn) error {
		ok, err := c.exists(ctx, c.forUpdate(`SELECT 1 FROM pools WHERE id = ?`), id)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("pool %s not found", id)
		}
		used, err := c.exists(ctx, `SELECT 1 FROM instances WHERE pool_id = ? AND status <> 'deleted' LIMIT 1`, id)
		if err != nil {
			return err
		}
		if used {
			return invalid("pool has runners")
		}
		if _, err = c.exec(ctx, `DELETE FROM instances WHERE pool_id = ? AND status = 'deleted'`, id); err != nil {
			return s.wrapErr("delete pool history", err)
		}
		_, err = c.exec(ctx, `DELETE FROM pools WHERE id = ?`, id)
		if s.d.foreignKey(err) {
			return invalid("pool has runners")
		}
		return s.wrapErr("delete pool", err)
	})
}

// nonNil returns s, or an empty slice when s is nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

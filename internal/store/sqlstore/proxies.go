package sqlstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison"
)

const proxyCols = `id, name, description, http_proxy, https_proxy, no_proxy, username, password, created_at, updated_at`

// scanProxy scans a row of proxyCols and opens the password.
func (s *Store) scanProxy(sc interface{ Scan(...any) error }) (garrison.Proxy, error) {
	var (
		p  garrison.Proxy
		pw []byte
	)
	err := sc.Scan(&p.ID, &p.Name, &p.Description, &p.HTTPProxy, &p.HTTPSProxy, &p.NoProxy, &p.Username, &pw,
		utc(&p.CreatedAt), utc(&p.UpdatedAt))
	if err != nil {
		return p, err
	}
	pw, err = s.unseal(pw)
	p.Password = string(pw)
	return p, err
}

// CreateProxy stores a new proxy with a new ID; ErrInvalid unless it validates,
// ErrConflict if the name is taken (case-insensitive).
func (s *Store) CreateProxy(ctx context.Context, p garrison.Proxy) (garrison.Proxy, error) {
	if err := p.Validate(); err != nil {
		return garrison.Proxy{}, err
	}
	pw, err := s.seal([]byte(p.Password))
	if err != nil {
		return garrison.Proxy{}, err
	}
	p.CreatedAt = now()
	p.UpdatedAt = p.CreatedAt
	err = s.write(ctx, func(c conn) error {
		err := c.row(ctx, `INSERT INTO proxies (name, description, http_proxy, https_proxy, no_proxy, username,
			password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			p.Name, p.Description, p.HTTPProxy, p.HTTPSProxy, p.NoProxy, p.Username, pw, p.CreatedAt, p.UpdatedAt).Scan(&p.ID)
		if s.d.unique(err) {
			return conflict("a proxy already exists with the specified name")
		}
		return s.wrapErr("create proxy", err)
	})
	if err != nil {
		return garrison.Proxy{}, err
	}
	return p, nil
}

// Proxy returns the proxy with the given ID.
func (s *Store) Proxy(ctx context.Context, id uint) (garrison.Proxy, error) {
	p, err := s.scanProxy(s.reader().row(ctx, `SELECT `+proxyCols+` FROM proxies WHERE id = ?`, int64(id)))
	if err != nil {
		return p, s.noRows(err, "read proxy", "not found")
	}
	return p, nil
}

// ListProxies lists every proxy by ID.
func (s *Store) ListProxies(ctx context.Context) ([]garrison.Proxy, error) {
	rows, err := s.reader().query(ctx, `SELECT `+proxyCols+` FROM proxies ORDER BY id`)
	if err != nil {
		return nil, s.wrap("list proxies", err)
	}
	return collect(rows, s.scanProxy, s.wrap)
}

// UpdateProxy runs fn on the proxy under a write lock and stores the result, which must
// validate. ID and CreatedAt cannot change; ErrConflict if the new name is taken.
func (s *Store) UpdateProxy(ctx context.Context, id uint, fn func(*garrison.Proxy) error) (garrison.Proxy, error) {
	var out garrison.Proxy
	err := s.write(ctx, func(c conn) error {
		cur, err := s.scanProxy(c.row(ctx, c.forUpdate(`SELECT `+proxyCols+` FROM proxies WHERE id = ?`), int64(id)))
		if err != nil {
			return s.noRows(err, "read proxy", "not found")
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		next.ID, next.CreatedAt, next.UpdatedAt = cur.ID, cur.CreatedAt, now()
		if err := next.Validate(); err != nil {
			return err
		}
		pw, err := s.seal([]byte(next.Password))
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `UPDATE proxies SET name = ?, description = ?, http_proxy = ?, https_proxy = ?,
			no_proxy = ?, username = ?, password = ?, updated_at = ? WHERE id = ?`,
			next.Name, next.Description, next.HTTPProxy, next.HTTPSProxy, next.NoProxy, next.Username, pw,
			next.UpdatedAt, int64(next.ID))
		if s.d.unique(err) {
			return conflict("a proxy already exists with the specified name")
		}
		if err != nil {
			return s.wrap("update proxy", err)
		}
		out = next
		return nil
	})
	return out, err
}

// DeleteProxy removes the proxy; ErrInvalid while pools reference it; nil if missing.
func (s *Store) DeleteProxy(ctx context.Context, id uint) error {
	return s.write(ctx, func(c conn) error {
		rows, err := c.query(ctx, `SELECT id FROM pools WHERE proxy_id = ? ORDER BY id`, int64(id))
		if err != nil {
			return s.wrap("read pools of proxy", err)
		}
		var ids []string
		for rows.Next() {
			var pid string
			if err := rows.Scan(&pid); err != nil {
				rows.Close()
				return s.wrap("read pools of proxy", err)
			}
			ids = append(ids, pid)
		}
		if err := rows.Close(); err != nil {
			return s.wrap("read pools of proxy", err)
		}
		if len(ids) > 0 {
			return invalid("cannot delete proxy while in use by pools or scale sets (pools %s)", strings.Join(ids, ", "))
		}
		_, err = c.exec(ctx, `DELETE FROM proxies WHERE id = ?`, int64(id))
		return s.wrapErr("delete proxy "+strconv.FormatUint(uint64(id), 10), err)
	})
}

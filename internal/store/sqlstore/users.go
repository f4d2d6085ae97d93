package sqlstore

import (
	"context"
	"strings"

	"github.com/garrison-ci/garrison"
)

const userCols = `id, username, email, full_name, password_hash, enabled, is_admin, generation,
	created_at, updated_at`

func scanUser(sc interface{ Scan(...any) error }) (garrison.User, error) {
	var u garrison.User
	err := sc.Scan(&u.ID, &u.Username, &u.Email, &u.FullName, &u.PasswordHash, &u.Enabled,
		&u.IsAdmin, &u.Generation, utc(&u.CreatedAt), utc(&u.UpdatedAt))
	return u, err
}

// HasAdmin reports whether any user exists.
func (s *Store) HasAdmin(ctx context.Context) (bool, error) {
	var ok bool
	err := s.read(ctx, func(c conn) error {
		var err error
		ok, err = c.exists(ctx, `SELECT 1 FROM users LIMIT 1`)
		return err
	})
	return ok, err
}

// CreateAdmin stores the first user with a new ID; ErrConflict if any user exists.
func (s *Store) CreateAdmin(ctx context.Context, u garrison.User) (garrison.User, error) {
	if strings.TrimSpace(u.Username) == "" {
		return garrison.User{}, invalid("missing username")
	}
	u.ID = newID()
	u.CreatedAt = now()
	u.UpdatedAt = u.CreatedAt
	err := s.write(ctx, func(c conn) error {
		if err := c.lock(ctx, lockAdmin); err != nil {
			return err
		}
		taken, err := c.exists(ctx, `SELECT 1 FROM users LIMIT 1`)
		if err != nil {
			return err
		}
		if taken {
			return conflict("already initialized")
		}
		_, err = c.exec(ctx, `INSERT INTO users (`+userCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.Username, u.Email, u.FullName, u.PasswordHash, u.Enabled, u.IsAdmin,
			int64(u.Generation), u.CreatedAt, u.UpdatedAt)
		if s.d.unique(err) {
			return conflict("already initialized")
		}
		return s.wrapErr("create user", err)
	})
	if err != nil {
		return garrison.User{}, err
	}
	return u, nil
}

// Admin returns the first user, the one CreateAdmin stored.
func (s *Store) Admin(ctx context.Context) (garrison.User, error) {
	u, err := scanUser(s.reader().row(ctx, `SELECT `+userCols+` FROM users ORDER BY created_at, id LIMIT 1`))
	if err != nil {
		return u, s.noRows(err, "read admin", "no admin user")
	}
	return u, nil
}

// User returns the user with the given ID.
func (s *Store) User(ctx context.Context, id string) (garrison.User, error) {
	u, err := scanUser(s.reader().row(ctx, `SELECT `+userCols+` FROM users WHERE id = ?`, id))
	if err != nil {
		return u, s.noRows(err, "read user", "user %s not found", id)
	}
	return u, nil
}

// UserByName returns the user with the given name, compared case-insensitively.
func (s *Store) UserByName(ctx context.Context, username string) (garrison.User, error) {
	u, err := scanUser(s.reader().row(ctx,
		`SELECT `+userCols+` FROM users WHERE lower(username) = lower(?)`, username))
	if err != nil {
		return u, s.noRows(err, "read user", "user %s not found", username)
	}
	return u, nil
}

// UpdateUser runs fn on the user under a write lock and stores the result. ID and
// CreatedAt cannot change.
func (s *Store) UpdateUser(ctx context.Context, id string, fn func(*garrison.User) error) (garrison.User, error) {
	var out garrison.User
	err := s.write(ctx, func(c conn) error {
		cur, err := scanUser(c.row(ctx, c.forUpdate(`SELECT `+userCols+` FROM users WHERE id = ?`), id))
		if err != nil {
			return s.noRows(err, "read user", "user %s not found", id)
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		next.ID, next.CreatedAt, next.UpdatedAt = cur.ID, cur.CreatedAt, now()
		_, err = c.exec(ctx, `UPDATE users SET username = ?, email = ?, full_name = ?, password_hash = ?,
			enabled = ?, is_admin = ?, generation = ?, updated_at = ? WHERE id = ?`,
			next.Username, next.Email, next.FullName, next.PasswordHash, next.Enabled, next.IsAdmin,
			int64(next.Generation), next.UpdatedAt, id)
		if s.d.unique(err) {
			return conflict("user %s already exists", next.Username)
		}
		if err != nil {
			return s.wrap("update user", err)
		}
		out = next
		return nil
	})
	return out, err
}

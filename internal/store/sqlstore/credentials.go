package sqlstore

import (
	"context"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

const credentialsCols = `id, name, description, forge_type, auth_type, endpoint_name, pat, app_id,
	installation_id, private_key, created_at, updated_at`

// scanCredentials scans a row of credentialsCols and opens its secrets.
func (s *Store) scanCredentials(sc interface{ Scan(...any) error }) (garrison.Credentials, error) {
	var (
		c        garrison.Credentials
		pat, key []byte
	)
	err := sc.Scan(&c.ID, &c.Name, &c.Description, &c.ForgeType, &c.AuthType, &c.Endpoint, &pat, &c.AppID,
		&c.InstallationID, &key, utc(&c.CreatedAt), utc(&c.UpdatedAt))
	if err != nil {
		return c, err
	}
	if pat, err = s.unseal(pat); err != nil {
		return c, err
	}
	c.PAT = string(pat)
	c.PrivateKey, err = s.unseal(key)
	return c, err
}

// CreateCredentials stores new credentials; ErrNotFound if the endpoint of that forge type
// does not exist, ErrConflict if the name is taken for the forge type.
func (s *Store) CreateCredentials(ctx context.Context, cr garrison.Credentials) (garrison.Credentials, error) {
	if strings.TrimSpace(cr.Name) == "" {
		return garrison.Credentials{}, invalid("missing credentials name")
	}
	pat, key, err := s.sealCredentials(cr)
	if err != nil {
		return garrison.Credentials{}, err
	}
	cr.CreatedAt = now()
	cr.UpdatedAt = cr.CreatedAt
	err = s.write(ctx, func(c conn) error {
		err := c.row(ctx, `SELECT name FROM endpoints WHERE lower(name) = lower(?) AND type = ?`,
			cr.Endpoint, cr.ForgeType).Scan(&cr.Endpoint)
		if err != nil {
			return s.noRows(err, "read endpoint", "%s endpoint %q not found", cr.ForgeType, cr.Endpoint)
		}
		err = c.row(ctx, `INSERT INTO credentials (name, description, forge_type, auth_type, endpoint_name,
			pat, app_id, installation_id, private_key, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			cr.Name, cr.Description, cr.ForgeType, cr.AuthType, cr.Endpoint, pat, cr.AppID,
			cr.InstallationID, key, cr.CreatedAt, cr.UpdatedAt).Scan(&cr.ID)
		if s.d.unique(err) {
			return conflict("%s credentials %q already exist", cr.ForgeType, cr.Name)
		}
		if s.d.foreignKey(err) {
			return notFound("endpoint %q not found", cr.Endpoint)
		}
		return s.wrapErr("create credentials", err)
	})
	if err != nil {
		return garrison.Credentials{}, err
	}
	return cr, nil
}

func (s *Store) sealCredentials(cr garrison.Credentials) (pat, key any, err error) {
	if pat, err = s.seal([]byte(cr.PAT)); err != nil {
		return nil, nil, err
	}
	if key, err = s.seal(cr.PrivateKey); err != nil {
		return nil, nil, err
	}
	return pat, key, nil
}

// Credentials returns the credentials with the given ID.
func (s *Store) Credentials(ctx context.Context, id uint) (garrison.Credentials, error) {
	cr, err := s.scanCredentials(s.reader().row(ctx, `SELECT `+credentialsCols+` FROM credentials WHERE id = ?`, int64(id)))
	if err != nil {
		return cr, s.noRows(err, "read credentials", "credentials %d not found", id)
	}
	return cr, nil
}

// ListCredentials lists the credentials matching f in creation order (their IDs are a
// sequence).
func (s *Store) ListCredentials(ctx context.Context, f store.CredentialsFilter) ([]garrison.Credentials, error) {
	rows, err := s.reader().query(ctx, `SELECT `+credentialsCols+` FROM credentials
		WHERE (? = '' OR forge_type = ?) AND (? = '' OR lower(name) = lower(?))
		AND (? = '' OR lower(endpoint_name) = lower(?))
		ORDER BY id`,
		f.ForgeType, f.ForgeType, f.Name, f.Name, f.Endpoint, f.Endpoint)
	if err != nil {
		return nil, s.wrap("list credentials", err)
	}
	return collect(rows, s.scanCredentials, s.wrap)
}

// UpdateCredentials runs fn on the credentials under a write lock and stores the result.
// ID and CreatedAt cannot change; ErrInvalid if fn changes the forge type, endpoint or
// authentication type.
func (s *Store) UpdateCredentials(ctx context.Context, id uint, fn func(*garrison.Credentials) error) (garrison.Credentials, error) {
	var out garrison.Credentials
	err := s.write(ctx, func(c conn) error {
		cur, err := s.scanCredentials(c.row(ctx, c.forUpdate(`SELECT `+credentialsCols+` FROM credentials WHERE id = ?`), int64(id)))
		if err != nil {
			return s.noRows(err, "read credentials", "credentials %d not found", id)
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		next.ID, next.CreatedAt, next.UpdatedAt = cur.ID, cur.CreatedAt, now()
		if next.ForgeType != cur.ForgeType || next.AuthType != cur.AuthType || !strings.EqualFold(next.Endpoint, cur.Endpoint) {
			return invalid("the forge type, endpoint and auth type of credentials cannot change")
		}
		next.Endpoint = cur.Endpoint
		return s.storeCredentials(ctx, c, &next, &out)
	})
	return out, err
}

func (s *Store) storeCredentials(ctx context.Context, c conn, next, out *garrison.Credentials) error {
	pat, key, err := s.sealCredentials(*next)
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, `UPDATE credentials SET name = ?, description = ?, pat = ?, app_id = ?,
		installation_id = ?, private_key = ?, updated_at = ? WHERE id = ?`,
		next.Name, next.Description, pat, next.AppID, next.InstallationID, key, next.UpdatedAt, int64(next.ID))
	if s.d.unique(err) {
		return conflict("%s credentials %q already exist", next.ForgeType, next.Name)
	}
	if err != nil {
		return s.wrap("update credentials", err)
	}
	*out = *next
	return nil
}

// DeleteCredentials removes the credentials; ErrInvalid while entities use them; nil if
// missing.
func (s *Store) DeleteCredentials(ctx context.Context, id uint) error {
	return s.write(ctx, func(c conn) error {
		used, err := c.exists(ctx, `SELECT 1 FROM entities WHERE credentials_id = ? LIMIT 1`, int64(id))
		if err != nil {
			return err
		}
		if used {
			return invalid("credentials %d are in use by entities", id)
		}
		_, err = c.exec(ctx, `DELETE FROM credentials WHERE id = ?`, int64(id))
		if s.d.foreignKey(err) {
			return invalid("credentials %d are in use by entities", id)
		}
		return s.wrapErr("delete credentials", err)
	})
}

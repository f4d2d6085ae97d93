package sqlstore

import (
	"context"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// entitySelect reads entities joined with their credentials; append a WHERE clause.
const entitySelect = `SELECT e.id, e.type, e.owner, e.name, e.credentials_id, c.name, e.endpoint_name,
	c.forge_type, e.webhook_secret, e.balancer, e.agent_mode, @ts(e.created_at), @ts(e.updated_at)
	FROM entities e JOIN credentials c ON c.id = e.credentials_id`

// scanEntity scans a row of entitySelect and opens the webhook secret.
func (s *Store) scanEntity(sc interface{ Scan(...any) error }) (garrison.Entity, error) {
	var (
		e      garrison.Entity
		secret []byte
	)
	err := sc.Scan(&e.ID, &e.Type, &e.Owner, &e.Name, &e.CredentialsID, &e.CredentialsName, &e.Endpoint,
		&e.ForgeType, &secret, &e.Balancer, &e.AgentMode, utc(&e.CreatedAt), utc(&e.UpdatedAt))
	if err != nil {
		return e, err
	}
	secret, err = s.unseal(secret)
	e.WebhookSecret = string(secret)
	return e, err
}

// CreateEntity stores a new entity with a new ID; ErrConflict if the same type, owner and
// name exist on the same endpoint (case-insensitive); ErrNotFound if the credentials do
// not exist.
func (s *Store) CreateEntity(ctx context.Context, e garrison.Entity) (garrison.Entity, error) {
	if !e.Type.Valid() {
		return garrison.Entity{}, invalid("invalid entity type %q", e.Type)
	}
	if strings.TrimSpace(e.Name) == "" && e.Type != garrison.ForgeInstance { // named after the endpoint
		return garrison.Entity{}, invalid("missing %s name", e.Type)
	}
	secret, err := s.seal([]byte(e.WebhookSecret))
	if err != nil {
		return garrison.Entity{}, err
	}
	e.ID = newID()
	e.CreatedAt = now()
	e.UpdatedAt = e.CreatedAt
	err = s.write(ctx, func(c conn) error {
		if err := s.fillCredentials(ctx, c, &e); err != nil {
			return err
		}
		if err := forgeInstanceName(&e); err != nil {
			return err
		}
		_, err := c.exec(ctx, `INSERT INTO entities (id, type, owner, name, credentials_id, endpoint_name,
			webhook_secret, balancer, agent_mode, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.Type, e.Owner, e.Name, int64(e.CredentialsID), e.Endpoint, secret, e.Balancer, e.AgentMode,
			e.CreatedAt, e.UpdatedAt)
		if s.d.unique(err) {
			return entityConflict(e)
		}
		if s.d.foreignKey(err) {
			return notFound("credentials %d not found", e.CredentialsID)
		}
		return s.wrapErr("create entity", err)
	})
	if err != nil {
		return garrison.Entity{}, err
	}
	return e, nil
}

// entityConflict is the error for an entity that exists already.
func entityConflict(e garrison.Entity) error {
	if e.Type == garrison.ForgeInstance {
		return conflict("forge instance for endpoint %s already exists", e.Endpoint)
	}
	return conflict("%s %s already exists", e.Type, e.FullName())
}

// forgeInstanceName names a forge instance after its credentials' endpoint: one per
// endpoint, which the entities' unique index then enforces. Only Gitea servers are forge
// instances.
func forgeInstanceName(e *garrison.Entity) error {
	if e.Type != garrison.ForgeInstance {
		return nil
	}
	if e.ForgeType != garrison.Gitea {
		return invalid("forge type %q does not support instance-level pools", e.ForgeType)
	}
	e.Owner, e.Name = "", e.Endpoint
	return nil
}

// fillCredentials sets the credentials-derived fields of e, locking the credentials row.
func (s *Store) fillCredentials(ctx context.Context, c conn, e *garrison.Entity) error {
	err := c.row(ctx, c.forUpdate(`SELECT name, endpoint_name, forge_type FROM credentials WHERE id = ?`),
		int64(e.CredentialsID)).Scan(&e.CredentialsName, &e.Endpoint, &e.ForgeType)
	return s.noRows(err, "read credentials", "credentials %d not found", e.CredentialsID)
}

// Entity returns the entity with the given ID.
func (s *Store) Entity(ctx context.Context, id string) (garrison.Entity, error) {
	e, err := s.scanEntity(s.reader().row(ctx, entitySelect+` WHERE e.id = ?`, id))
	if err != nil {
		return e, s.noRows(err, "read entity", "entity %s not found", id)
	}
	return e, nil
}

// ListEntities lists the entities matching f in creation order.
func (s *Store) ListEntities(ctx context.Context, f store.EntityFilter) ([]garrison.Entity, error) {
	rows, err := s.reader().query(ctx, entitySelect+`
		WHERE (? = '' OR e.type = ?) AND (? = '' OR lower(e.owner) = lower(?))
		AND (? = '' OR lower(e.name) = lower(?)) AND (? = '' OR lower(e.endpoint_name) = lower(?))
		ORDER BY e.created_at, e.id`,
		f.Type, f.Type, f.Owner, f.Owner, f.Name, f.Name, f.Endpoint, f.Endpoint)
	if err != nil {
		return nil, s.wrap("list entities", err)
	}
	return collect(rows, s.scanEntity, s.wrap)
}

// UpdateEntity runs fn on the entity under a write lock and stores the result. ID, Type
// and CreatedAt cannot change; new credentials must exist (ErrNotFound) and belong to the
// same endpoint (ErrInvalid).
func (s *Store) UpdateEntity(ctx context.Context, id string, fn func(*garrison.Entity) error) (garrison.Entity, error) {
	var out garrison.Entity
	err := s.write(ctx, func(c conn) error {
		cur, err := s.scanEntity(c.row(ctx, c.forUpdate(entitySelect+` WHERE e.id = ?`, "e"), id))
		if err != nil {
			return s.noRows(err, "read entity", "entity %s not found", id)
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		next.ID, next.Type, next.CreatedAt, next.UpdatedAt = cur.ID, cur.Type, cur.CreatedAt, now()
		if err := s.fillCredentials(ctx, c, &next); err != nil {
			return err
		}
		if next.Endpoint != cur.Endpoint {
			return invalid("endpoint mismatch: credentials %s belong to endpoint %q, not %q",
				next.CredentialsName, next.Endpoint, cur.Endpoint)
		}
		if err := forgeInstanceName(&next); err != nil {
			return err
		}
		if err := s.storeEntity(ctx, c, next); err != nil {
			return err
		}
		out = next
		return nil
	})
	return out, err
}

func (s *Store) storeEntity(ctx context.Context, c conn, e garrison.Entity) error {
	secret, err := s.seal([]byte(e.WebhookSecret))
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, `UPDATE entities SET owner = ?, name = ?, credentials_id = ?, webhook_secret = ?,
		balancer = ?, agent_mode = ?, updated_at = ? WHERE id = ?`,
		e.Owner, e.Name, int64(e.CredentialsID), secret, e.Balancer, e.AgentMode, e.UpdatedAt, e.ID)
	if s.d.unique(err) {
		return entityConflict(e)
	}
	return s.wrapErr("update entity", err)
}

// DeleteEntity removes the entity and its events; ErrInvalid while pools or scale sets exist;
// ErrNotFound if missing.
func (s *Store) DeleteEntity(ctx context.Context, id string) error {
	return s.write(ctx, func(c conn) error {
		var typ garrison.EntityType
		if err := c.row(ctx, c.forUpdate(`SELECT type FROM entities WHERE id = ?`), id).Scan(&typ); err != nil {
			return s.noRows(err, "read entity", "entity %s not found", id)
		}
		used, err := c.exists(ctx, `SELECT 1 FROM pools WHERE entity_id = ? LIMIT 1`, id)
		if err != nil {
			return err
		}
		if used {
			return invalid("%s has pools", typ)
		}
		if used, err = c.exists(ctx, `SELECT 1 FROM scale_sets WHERE entity_id = ? LIMIT 1`, id); err != nil {
			return err
		}
		if used {
			return invalid("%s has scale sets", typ)
		}
		_, err = c.exec(ctx, `DELETE FROM entities WHERE id = ?`, id)
		if s.d.foreignKey(err) {
			return invalid("%s has pools or scale sets", typ)
		}
		return s.wrapErr("delete entity", err)
	})
}

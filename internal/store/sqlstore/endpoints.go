package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/garrison-ci/garrison"
)

const endpointCols = `name, type, description, base_url, api_base_url, upload_base_url, ca_cert_bundle,
	tools_metadata_url, use_internal_tools_metadata, created_at, updated_at`

func scanEndpoint(sc interface{ Scan(...any) error }) (garrison.Endpoint, error) {
	var e garrison.Endpoint
	err := sc.Scan(&e.Name, &e.Type, &e.Description, &e.BaseURL, &e.APIBaseURL, &e.UploadBaseURL,
		&e.CACertBundle, &e.ToolsMetadataURL, &e.UseInternalToolsMetadata, utc(&e.CreatedAt), utc(&e.UpdatedAt))
	return e, err
}

// CreateEndpoint stores a new endpoint; ErrConflict if the name exists for any forge type.
func (s *Store) CreateEndpoint(ctx context.Context, e garrison.Endpoint) (garrison.Endpoint, error) {
	if strings.TrimSpace(e.Name) == "" {
		return garrison.Endpoint{}, invalid("missing endpoint name")
	}
	if !e.Type.Valid() {
		return garrison.Endpoint{}, invalid("invalid forge type %q", e.Type)
	}
	e.CreatedAt = now()
	e.UpdatedAt = e.CreatedAt
	err := s.write(ctx, func(c conn) error {
		_, err := c.exec(ctx, `INSERT INTO endpoints (`+endpointCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Name, e.Type, e.Description, e.BaseURL, e.APIBaseURL, e.UploadBaseURL, bytesArg(e.CACertBundle),
			e.ToolsMetadataURL, e.UseInternalToolsMetadata, e.CreatedAt, e.UpdatedAt)
		if s.d.unique(err) {
			return conflict("endpoint %q already exists", e.Name)
		}
		return s.wrapErr("create endpoint", err)
	})
	if err != nil {
		return garrison.Endpoint{}, err
	}
	return e, nil
}

// Endpoint returns the endpoint with the given name, compared case-insensitively.
func (s *Store) Endpoint(ctx context.Context, name string) (garrison.Endpoint, error) {
	e, err := scanEndpoint(s.reader().row(ctx,
		`SELECT `+endpointCols+` FROM endpoints WHERE lower(name) = lower(?)`, name))
	if err != nil {
		return e, s.noRows(err, "read endpoint", "endpoint %q not found", name)
	}
	return e, nil
}

// ListEndpoints lists endpoints of one forge type, or all when t is "", in creation order.
func (s *Store) ListEndpoints(ctx context.Context, t garrison.ForgeType) ([]garrison.Endpoint, error) {
	rows, err := s.reader().query(ctx, `SELECT `+endpointCols+` FROM endpoints
		WHERE (? = '' OR type = ?) ORDER BY created_at, lower(name)`, t, t)
	if err != nil {
		return nil, s.wrap("list endpoints", err)
	}
	return collect(rows, scanEndpoint, s.wrap)
}

// UpdateEndpoint runs fn on the endpoint under a write lock and stores the result. Name,
// Type and CreatedAt cannot change; ErrInvalid if a URL changes while credentials use it.
func (s *Store) UpdateEndpoint(ctx context.Context, name string, fn func(*garrison.Endpoint) error) (garrison.Endpoint, error) {
	var out garrison.Endpoint
	err := s.write(ctx, func(c conn) error {
		cur, err := scanEndpoint(c.row(ctx, c.forUpdate(`SELECT `+endpointCols+` FROM endpoints
			WHERE lower(name) = lower(?)`), name))
		if err != nil {
			return s.noRows(err, "read endpoint", "endpoint %q not found", name)
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		next.Name, next.Type, next.CreatedAt, next.UpdatedAt = cur.Name, cur.Type, cur.CreatedAt, now()
		if err := s.checkEndpointURLs(ctx, c, cur, next); err != nil {
			return err
		}
		_, err = c.exec(ctx, `UPDATE endpoints SET description = ?, base_url = ?, api_base_url = ?,
			upload_base_url = ?, ca_cert_bundle = ?, tools_metadata_url = ?, use_internal_tools_metadata = ?,
			updated_at = ? WHERE name = ?`,
			next.Description, next.BaseURL, next.APIBaseURL, next.UploadBaseURL, bytesArg(next.CACertBundle),
			next.ToolsMetadataURL, next.UseInternalToolsMetadata, next.UpdatedAt, cur.Name)
		if err != nil {
			return s.wrap("update endpoint", err)
		}
		out = next
		return nil
	})
	return out, err
}

// checkEndpointURLs refuses a URL change while credentials use the endpoint.
func (s *Store) checkEndpointURLs(ctx context.Context, c conn, cur, next garrison.Endpoint) error {
	if cur.BaseURL == next.BaseURL && cur.APIBaseURL == next.APIBaseURL && cur.UploadBaseURL == next.UploadBaseURL {
		return nil
	}
	used, err := c.exists(ctx, `SELECT 1 FROM credentials WHERE endpoint_name = ? LIMIT 1`, cur.Name)
	if err != nil {
		return err
	}
	if used {
		return invalid("cannot change the URLs of endpoint %q while credentials use it", cur.Name)
	}
	return nil
}

// DeleteEndpoint removes the endpoint; ErrInvalid while credentials or entities use it or
// for the built-in github.com endpoint; nil if missing.
func (s *Store) DeleteEndpoint(ctx context.Context, name string) error {
	if strings.EqualFold(name, garrison.GitHubComEndpoint) {
		return invalid("the %s endpoint cannot be deleted", garrison.GitHubComEndpoint)
	}
	return s.write(ctx, func(c conn) error {
		var canonical string
		err := c.row(ctx, c.forUpdate(`SELECT name FROM endpoints WHERE lower(name) = lower(?)`), name).Scan(&canonical)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return s.wrap("read endpoint", err)
		}
		for _, use := range []struct{ table, what string }{{"credentials", "credentials"}, {"entities", "entities"}} {
			used, err := c.exists(ctx, `SELECT 1 FROM `+use.table+` WHERE endpoint_name = ? LIMIT 1`, canonical)
			if err != nil {
				return err
			}
			if used {
				return invalid("endpoint %q is in use by %s", canonical, use.what)
			}
		}
		_, err = c.exec(ctx, `DELETE FROM endpoints WHERE name = ?`, canonical)
		if s.d.foreignKey(err) {
			return invalid("endpoint %q is in use", canonical)
		}
		return s.wrapErr("delete endpoint", err)
	})
}

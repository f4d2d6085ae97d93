package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/garrison-ci/garrison"
)

const controllerCols = `uuid, metadata_url, callback_url, webhook_url, agent_url, agent_releases_url,
	enable_agent_tools_sync, agent_version, allow_insecure_agent, minimum_job_age_backoff,
	ca_cert_bundle, created_at, updated_at`

// Controller returns the controller, creating it with a fresh UUID and the default agent
// releases URL and job age backoff on first call.
func (s *Store) Controller(ctx context.Context) (garrison.Controller, error) {
	out, err := s.scanController(s.reader().row(ctx, `SELECT `+controllerCols+` FROM controller WHERE id = 1`))
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return out, s.wrap("read controller", err)
	}
	err = s.write(ctx, func(c conn) error {
		var err error
		out, err = s.controllerTx(ctx, c)
		return err
	})
	return out, err
}

// UpdateController runs fn on the controller under a write lock and stores the result.
// ID, SealSalt and CreatedAt cannot change.
func (s *Store) UpdateController(ctx context.Context, fn func(*garrison.Controller) error) (garrison.Controller, error) {
	var out garrison.Controller
	err := s.write(ctx, func(c conn) error {
		cur, err := s.controllerTx(ctx, c)
		if err != nil {
			return err
		}
		next := cur
		if err := fn(&next); err != nil {
			return err
		}
		next.ID, next.SealSalt, next.CreatedAt, next.UpdatedAt = cur.ID, cur.SealSalt, cur.CreatedAt, now()
		_, err = c.exec(ctx, `UPDATE controller SET metadata_url = ?, callback_url = ?, webhook_url = ?,
			agent_url = ?, agent_releases_url = ?, enable_agent_tools_sync = ?, agent_version = ?,
			allow_insecure_agent = ?, minimum_job_age_backoff = ?, ca_cert_bundle = ?, updated_at = ?
			WHERE id = 1`,
			next.MetadataURL, next.CallbackURL, next.WebhookURL, next.AgentURL, next.AgentReleasesURL,
			next.EnableAgentToolsSync, next.AgentVersion, next.AllowInsecureAgent,
			int64(next.MinimumJobAgeBackoff), bytesArg(next.CACertBundle), next.UpdatedAt)
		if err != nil {
			return s.wrap("update controller", err)
		}
		out = next
		return nil
	})
	return out, err
}

// controllerTx reads the controller row locked, creating it first if missing.
func (s *Store) controllerTx(ctx context.Context, c conn) (garrison.Controller, error) {
	t := now()
	_, err := c.exec(ctx, `INSERT INTO controller (id, uuid, agent_releases_url, minimum_job_age_backoff,
		created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		newID(), garrison.DefaultAgentReleasesURL, garrison.DefaultMinimumJobAgeSecs, t, t)
	if err != nil {
		return garrison.Controller{}, s.wrap("create controller", err)
	}
	out, err := s.scanController(c.row(ctx, c.forUpdate(`SELECT `+controllerCols+` FROM controller WHERE id = 1`)))
	if err != nil {
		return garrison.Controller{}, s.wrap("read controller", err)
	}
	return out, nil
}

// scanController scans a row of controllerCols and adds the seal salt.
func (s *Store) scanController(sc interface{ Scan(...any) error }) (garrison.Controller, error) {
	var out garrison.Controller
	err := sc.Scan(&out.ID, &out.MetadataURL, &out.CallbackURL, &out.WebhookURL, &out.AgentURL,
		&out.AgentReleasesURL, &out.EnableAgentToolsSync, &out.AgentVersion, &out.AllowInsecureAgent,
		&out.MinimumJobAgeBackoff, &out.CACertBundle, utc(&out.CreatedAt), utc(&out.UpdatedAt))
	out.SealSalt = append([]byte(nil), s.salt...)
	return out, err
}

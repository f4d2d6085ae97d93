package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Import writes a whole snapshot in one write transaction: all of it, or nothing.
func (s *Store) Import(ctx context.Context, snap store.Snapshot) error {
	at := now()
	return s.write(ctx, func(c conn) error {
		if err := c.lock(ctx, lockAdmin); err != nil {
			return err
		}
		steps := []func(context.Context, conn, store.Snapshot, time.Time) error{
			s.importController, s.importUsers, s.importEndpoints, s.importCredentials,
			s.importEntities, s.importTags, s.importTemplates, s.importProxies, s.importPools, s.importScaleSets, s.importInstances,
			s.importJobs, s.importObjects,
		}
		for _, step := range steps {
			if err := step(ctx, c, snap, at); err != nil {
				return err
			}
		}
		if err := s.syncSequence(ctx, c, "templates", "id"); err != nil {
			return err
		}
		return s.syncSequence(ctx, c, "credentials", "id")
	})
}

// stamp is t as stored, or at when t is zero.
func stamp(t, at time.Time) time.Time {
	if t.IsZero() {
		return at
	}
	return t.UTC().Truncate(precision)
}

// syncSequence moves the id sequence of table past its largest id, where the dialect
// needs it after rows were inserted with explicit ids.
func (s *Store) syncSequence(ctx context.Context, c conn, table, column string) error {
	if s.d.SyncSequence == "" {
		return nil
	}
	_, err := c.exec(ctx, fmt.Sprintf(s.d.SyncSequence, table, column))
	return s.wrapErr("sync "+table+" sequence", err)
}

func (s *Store) importController(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	cur, err := s.controllerTx(ctx, c)
	if err != nil {
		return err
	}
	n := snap.Controller
	if strings.TrimSpace(n.ID) == "" {
		return invalid("the imported controller has no id")
	}
	_, err = c.exec(ctx, `UPDATE controller SET uuid = ?, metadata_url = ?, callback_url = ?, webhook_url = ?,
		agent_url = ?, agent_releases_url = ?, enable_agent_tools_sync = ?, agent_version = ?,
		allow_insecure_agent = ?, minimum_job_age_backoff = ?, ca_cert_bundle = ?, created_at = ?, updated_at = ?
		WHERE id = 1`,
		n.ID, n.MetadataURL, n.CallbackURL, n.WebhookURL, n.AgentURL, n.AgentReleasesURL,
		n.EnableAgentToolsSync, n.AgentVersion, n.AllowInsecureAgent, int64(n.MinimumJobAgeBackoff),
		bytesArg(n.CACertBundle), stamp(n.CreatedAt, cur.CreatedAt), stamp(n.UpdatedAt, at))
	return s.wrapErr("import controller", err)
}

func (s *Store) importUsers(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, u := range snap.Users {
		if strings.TrimSpace(u.ID) == "" || strings.TrimSpace(u.Username) == "" {
			return invalid("an imported user has no id or no username")
		}
		_, err := c.exec(ctx, `INSERT INTO users (`+userCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.Username, u.Email, u.FullName, u.PasswordHash, u.Enabled, u.IsAdmin,
			int64(u.Generation), stamp(u.CreatedAt, at), stamp(u.UpdatedAt, at))
		if s.d.unique(err) {
			return conflict("user %s (%s) already exists", u.Username, u.ID)
		}
		if err != nil {
			return s.wrap("import user", err)
		}
	}
	return nil
}

func (s *Store) importEndpoints(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, e := range snap.Endpoints {
		if !e.Type.Valid() || strings.TrimSpace(e.Name) == "" {
			return invalid("imported endpoint %q: invalid name or forge type %q", e.Name, e.Type)
		}
		cur, err := scanEndpoint(c.row(ctx, c.forUpdate(`SELECT `+endpointCols+` FROM endpoints WHERE lower(name) = lower(?)`), e.Name))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			err = s.insertEndpoint(ctx, c, e, at)
		case err != nil:
			err = s.wrap("read endpoint", err)
		default:
			err = s.overwriteEndpoint(ctx, c, cur, e, at)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) insertEndpoint(ctx context.Context, c conn, e garrison.Endpoint, at time.Time) error {
	_, err := c.exec(ctx, `INSERT INTO endpoints (`+endpointCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Name, e.Type, e.Description, e.BaseURL, e.APIBaseURL, e.UploadBaseURL, bytesArg(e.CACertBundle),
		e.ToolsMetadataURL, e.UseInternalToolsMetadata, stamp(e.CreatedAt, at), stamp(e.UpdatedAt, at))
	if s.d.unique(err) {
		return conflict("endpoint %s already exists", e.Name)
	}
	return s.wrapErr("import endpoint", err)
}

// overwriteEndpoint gives an existing endpoint the imported values, keeping its name.
func (s *Store) overwriteEndpoint(ctx context.Context, c conn, cur, e garrison.Endpoint, at time.Time) error {
	if cur.Type != e.Type {
		return conflict("endpoint %s exists as a %s endpoint, not %s", cur.Name, cur.Type, e.Type)
	}
	moved := cur.BaseURL != e.BaseURL || cur.APIBaseURL != e.APIBaseURL || cur.UploadBaseURL != e.UploadBaseURL ||
		!bytes.Equal(cur.CACertBundle, e.CACertBundle)
	if moved {
		used, err := c.exists(ctx, `SELECT 1 FROM credentials WHERE endpoint_name = ? LIMIT 1`, cur.Name)
		if err != nil {
			return err
		}
		if used {
			return conflict("endpoint %s is used by credentials and has other URLs than the imported one", cur.Name)
		}
	}
	_, err := c.exec(ctx, `UPDATE endpoints SET description = ?, base_url = ?, api_base_url = ?,
		upload_base_url = ?, ca_cert_bundle = ?, tools_metadata_url = ?, use_internal_tools_metadata = ?,
		updated_at = ? WHERE name = ?`,
		e.Description, e.BaseURL, e.APIBaseURL, e.UploadBaseURL, bytesArg(e.CACertBundle), e.ToolsMetadataURL,
		e.UseInternalToolsMetadata, stamp(e.UpdatedAt, at), cur.Name)
	return s.wrapErr("import endpoint", err)
}

func (s *Store) importCredentials(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, cr := range snap.Credentials {
		if cr.ID == 0 || strings.TrimSpace(cr.Name) == "" {
			return invalid("imported credentials %q have no id or no name", cr.Name)
		}
		err := c.row(ctx, `SELECT name FROM endpoints WHERE lower(name) = lower(?) AND type = ?`,
			cr.Endpoint, cr.ForgeType).Scan(&cr.Endpoint)
		if err != nil {
			return s.noRows(err, "read endpoint", "%s endpoint %q of credentials %s not found", cr.ForgeType, cr.Endpoint, cr.Name)
		}
		pat, key, err := s.sealCredentials(cr)
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `INSERT INTO credentials (`+credentialsCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			int64(cr.ID), cr.Name, cr.Description, cr.ForgeType, cr.AuthType, cr.Endpoint, pat, cr.AppID,
			cr.InstallationID, key, stamp(cr.CreatedAt, at), stamp(cr.UpdatedAt, at))
		if s.d.unique(err) {
			return conflict("credentials %d or %s credentials %q already exist", cr.ID, cr.ForgeType, cr.Name)
		}
		if err != nil {
			return s.wrap("import credentials", err)
		}
	}
	return nil
}

func (s *Store) importEntities(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, e := range snap.Entities {
		if !e.Type.Valid() || strings.TrimSpace(e.ID) == "" || strings.TrimSpace(e.Name) == "" {
			return invalid("imported %s %q: invalid type, id or name", e.Type, e.FullName())
		}
		want := e.Endpoint
		if err := s.fillCredentials(ctx, c, &e); err != nil {
			return err
		}
		if want != "" && !strings.EqualFold(want, e.Endpoint) {
			return invalid("%s %s is on endpoint %s but its credentials %s are on %s", e.Type, e.FullName(), want, e.CredentialsName, e.Endpoint)
		}
		secret, err := s.seal([]byte(e.WebhookSecret))
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `INSERT INTO entities (id, type, owner, name, credentials_id, endpoint_name,
			webhook_secret, balancer, agent_mode, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.Type, e.Owner, e.Name, int64(e.CredentialsID), e.Endpoint, secret, e.Balancer, e.AgentMode,
			stamp(e.CreatedAt, at), stamp(e.UpdatedAt, at))
		if s.d.unique(err) {
			return conflict("%s %s (%s) already exists", e.Type, e.FullName(), e.ID)
		}
		if err != nil {
			return s.wrap("import entity", err)
		}
		for _, ev := range snap.EntityEvents[e.ID] {
			if _, err := entityEvents.add(ctx, c, e.ID, ev); err != nil {
				return s.wrap("import entity event", err)
			}
		}
	}
	return nil
}

// importTags creates the tags with their ids; a tag whose name exists keeps the existing
// row (pools find tags by name).
func (s *Store) importTags(ctx context.Context, c conn, snap store.Snapshot, _ time.Time) error {
	for _, t := range snap.Tags {
		if strings.TrimSpace(t.Name) == "" {
			return invalid("an imported tag has no name")
		}
		id := t.ID
		if id == "" {
			id = newID()
		}
		if _, err := c.exec(ctx, `INSERT INTO tags (id, name) VALUES (?, ?) ON CONFLICT DO NOTHING`, id, strings.TrimSpace(t.Name)); err != nil {
			return s.wrap("import tag", err)
		}
	}
	return nil
}

func (s *Store) importPools(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, p := range snap.Pools {
		p.Tags = garrison.TagsFromNames(p.TagNames())
		if err := p.Validate(); err != nil {
			return invalid("imported pool %s: %s", p.ID, garrison.MessageOf(err))
		}
		if strings.TrimSpace(p.ID) == "" {
			return invalid("an imported pool has no id")
		}
		if err := s.checkPoolTemplate(ctx, c, p.TemplateID); err != nil {
			return notFound("template %d of pool %s not found", p.TemplateID, p.ID)
		}
		p.UpdatedAt = stamp(p.UpdatedAt, at)
		args := append([]any{p.ID, p.EntityID, stamp(p.CreatedAt, at)}, poolArgs(p)...)
		_, err := c.exec(ctx, `INSERT INTO pools (id, entity_id, created_at, `+poolColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
		switch {
		case s.d.unique(err):
			return conflict("pool %s already exists", p.ID)
		case s.d.foreignKey(err):
			return notFound("entity %s of pool %s not found", p.EntityID, p.ID)
		case err != nil:
			return s.wrap("import pool", err)
		}
		if _, err := s.setPoolTags(ctx, c, p.ID, p.Tags); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) importInstances(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, i := range snap.Instances {
		if strings.TrimSpace(i.ID) == "" || strings.TrimSpace(i.Name) == "" {
			return invalid("an imported instance has no id or no name")
		}
		if i.PoolID == "" && i.ScaleSetID == 0 {
			return notFound("pool %s not found", i.PoolID)
		}
		i.CreatedAt, i.UpdatedAt = stamp(i.CreatedAt, at), stamp(i.UpdatedAt, at)
		args, err := s.instanceArgs(i)
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `INSERT INTO instances (id, name, `+instanceColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			append([]any{i.ID, i.Name}, args...)...)
		if s.d.unique(err) {
			return conflict("instance %s (%s) or provider id %q already exists", i.Name, i.ID, i.ProviderID)
		}
		if err := s.instanceWriteErr(err, i); err != nil {
			return err
		}
		for _, ev := range i.StatusMessages {
			if _, err := instanceEvents.add(ctx, c, i.ID, ev); err != nil {
				return s.wrap("import status message", err)
			}
		}
	}
	return nil
}

func (s *Store) importJobs(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, j := range snap.Jobs {
		if j.ID <= 0 {
			return invalid("an imported job has no workflow job id")
		}
		j.CreatedAt, j.UpdatedAt = stamp(j.CreatedAt, at), stamp(j.UpdatedAt, at)
		j.Labels = nonNil(j.Labels)
		args, err := jobArgs(j)
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `INSERT INTO jobs (id, `+jobColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append([]any{j.ID}, args...)...)
		if s.d.unique(err) {
			return conflict("job %d already exists", j.ID)
		}
		if err != nil {
			return s.wrap("import job", err)
		}
	}
	return nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// scaleSetSelect reads scale sets (aliased ss) with their entity's type; append a WHERE
// clause.
const scaleSetSelect = `SELECT ss.id, ss.entity_id, e.type, ss.scale_set_id, ss.name, ss.disable_update,
	ss.state, ss.extended_state, ss.runner_prefix, ss.provider_name, ss.image, ss.flavor, ss.os_type,
	ss.os_arch, ss.max_runners, ss.min_idle_runners, ss.enabled, ss.desired_runner_count, ss.enable_shell,
	ss.generation, ss.runner_bootstrap_timeout, ss.extra_specs, ss.runner_group, ss.template_id,
	ss.proxy_id, ss.last_message_id, ss.session_owner, ss.session_id, ss.session_expires_at, ss.session_token,
	ss.created_at, ss.updated_at FROM scale_sets ss JOIN entities e ON e.id = ss.entity_id`

func scanScaleSet(sc interface{ Scan(...any) error }) (garrison.ScaleSet, error) {
	var s garrison.ScaleSet
	err := sc.Scan(&s.ID, &s.EntityID, &s.EntityType, &s.ScaleSetID, &s.Name, &s.DisableUpdate, &s.State,
		&s.ExtendedState, &s.RunnerPrefix, &s.ProviderName, &s.Image, &s.Flavor, &s.OSType, &s.OSArch,
		&s.MaxRunners, &s.MinIdleRunners, &s.Enabled, &s.DesiredRunnerCount, &s.EnableShell, &s.Generation,
		&s.RunnerBootstrapTimeout, rawJSON{&s.ExtraSpecs}, &s.RunnerGroup, &s.TemplateID, &s.ProxyID,
		&s.LastMessageID, &s.Session.Owner, &s.Session.SessionID, utc(&s.Session.ExpiresAt), &s.Session.Token,
		utc(&s.CreatedAt), utc(&s.UpdatedAt))
	return s, err
}

// scaleSetColumns are the columns fn of UpdateScaleSet may change, in scaleSetArgs order.
const scaleSetColumns = `scale_set_id, name, disable_update, state, extended_state, runner_prefix,
	provider_name, image, flavor, os_type, os_arch, max_runners, min_idle_runners, enabled,
	desired_runner_count, enable_shell, generation, runner_bootstrap_timeout, extra_specs, runner_group,
	template_id, proxy_id, updated_at`

const scaleSetPlaceholders = `?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?`

func scaleSetArgs(s garrison.ScaleSet) []any {
	return []any{int64(s.ScaleSetID), s.Name, s.DisableUpdate, string(s.State), s.ExtendedState,
		s.RunnerPrefix, s.ProviderName, s.Image, s.Flavor, s.OSType, s.OSArch, int64(s.MaxRunners),
		int64(s.MinIdleRunners), s.Enabled, int64(s.DesiredRunnerCount), s.EnableShell, int64(s.Generation),
		int64(s.RunnerBootstrapTimeout), rawJSONArg(s.ExtraSpecs), s.RunnerGroup, int64(s.TemplateID),
		int64(s.ProxyID), s.UpdatedAt}
}

// CreateScaleSet validates and stores a new scale set, creating its tags as needed;
// ErrNotFound if the entity does not exist; ErrConflict on a duplicate name in the
// entity's runner group.
func (s *Store) CreateScaleSet(ctx context.Context, ss garrison.ScaleSet) (garrison.ScaleSet, error) {
	ss.Tags = garrison.TagsFromNames(tagNames(ss.Tags))
	if ss.State == "" {
		ss.State = garrison.ScaleSetPendingCreate
	}
	if err := ss.Validate(); err != nil {
		return garrison.ScaleSet{}, err
	}
	ss.CreatedAt = now()
	ss.UpdatedAt = ss.CreatedAt
	ss.LastMessageID, ss.Session = 0, garrison.ScaleSetSession{}
	err := s.write(ctx, func(c conn) error {
		err := c.row(ctx, c.forUpdate(`SELECT type FROM entities WHERE id = ?`), ss.EntityID).Scan(&ss.EntityType)
		if err != nil {
			return s.noRows(err, "read entity", "entity %s not found", ss.EntityID)
		}
		args := append([]any{ss.EntityID, ss.CreatedAt}, scaleSetArgs(ss)...)
		var id int64
		err = c.row(ctx, `INSERT INTO scale_sets (entity_id, created_at, `+scaleSetColumns+`)
			VALUES (?, ?, `+scaleSetPlaceholders+`) RETURNING id`, args...).Scan(&id)
		if err != nil {
			return s.scaleSetWriteErr(err, ss)
		}
		ss.ID = uint(id)
		ss.Tags, err = s.setScaleSetTags(ctx, c, ss.ID, ss.Tags)
		return err
	})
	if err != nil {
		return garrison.ScaleSet{}, err
	}
	return ss, nil
}

func (s *Store) scaleSetWriteErr(err error, ss garrison.ScaleSet) error {
	switch {
	case err == nil:
		return nil
	case s.d.unique(err):
		return conflict("scale set %s already exists in runner group %q", ss.Name, ss.RunnerGroup)
	case s.d.foreignKey(err):
		return notFound("entity %s not found", ss.EntityID)
	}
	return s.wrap("store scale set", err)
}

// ScaleSet returns the scale set with the given ID and its tags.
func (s *Store) ScaleSet(ctx context.Context, id uint) (garrison.ScaleSet, error) {
	var out garrison.ScaleSet
	err := s.read(ctx, func(c conn) error {
		var err error
		out, err = s.scaleSetTx(ctx, c, id, false)
		return err
	})
	return out, err
}

// scaleSetTx reads one scale set and its tags, locking the row when lock is set.
func (s *Store) scaleSetTx(ctx context.Context, c conn, id uint, lock bool) (garrison.ScaleSet, error) {
	q := scaleSetSelect + ` WHERE ss.id = ?`
	if lock {
		q = c.forUpdate(q, "ss")
	}
	ss, err := scanScaleSet(c.row(ctx, q, int64(id)))
	if err != nil {
		return ss, s.noRows(err, "read scale set", "scale set %d not found", id)
	}
	tags, err := s.scaleSetTags(ctx, c, `ss.id = ?`, int64(id))
	ss.Tags = nonNil(tags[ss.ID])
	return ss, err
}

// ListScaleSets lists the scale sets matching f with their tags, in creation order.
func (s *Store) ListScaleSets(ctx context.Context, f store.ScaleSetFilter) ([]garrison.ScaleSet, error) {
	var out []garrison.ScaleSet
	err := s.read(ctx, func(c conn) error {
		var w filter
		w.when(f.EntityID != "", `ss.entity_id = ?`, f.EntityID)
		rows, err := c.query(ctx, scaleSetSelect+w.where()+` ORDER BY ss.id`, w.args...)
		if err != nil {
			return s.wrap("list scale sets", err)
		}
		if out, err = collect(rows, scanScaleSet, s.wrap); err != nil {
			return err
		}
		tags, err := s.scaleSetTags(ctx, c, w.and(), w.args...)
		for i := range out {
			out[i].Tags = nonNil(tags[out[i].ID])
		}
		return err
	})
	return out, err
}

// UpdateScaleSet runs fn on the scale set under a write lock, validates and stores the
// result. ID, EntityID, CreatedAt, LastMessageID and Session cannot change, except that a
// new forge id (ScaleSetID) resets LastMessageID to 0. Unless fn
// sets Generation itself, it is bumped when the runner definition changes. Tags are kept
// as they were (labels are fixed at creation).
func (s *Store) UpdateScaleSet(ctx context.Context, id uint, fn func(*garrison.ScaleSet) error) (garrison.ScaleSet, error) {
	var out garrison.ScaleSet
	err := s.write(ctx, func(c conn) error {
		cur, err := s.scaleSetTx(ctx, c, id, true)
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
		next.LastMessageID, next.Session, next.Tags = cur.LastMessageID, cur.Session, cur.Tags
		if next.ScaleSetID != cur.ScaleSetID {
			// Another scale set on the forge (recreated after the service lost it): its
			// message queue starts afresh.
			next.LastMessageID = 0
		}
		if err := next.Validate(); err != nil {
			return err
		}
		if next.Generation == cur.Generation && garrison.ScaleSetDefinitionChanged(cur, next) {
			next.Generation++
		}
		_, err = c.exec(ctx, `UPDATE scale_sets SET (`+scaleSetColumns+`) = (`+scaleSetPlaceholders+`) WHERE id = ?`,
			append(scaleSetArgs(next), int64(next.ID))...)
		if err := s.scaleSetWriteErr(err, next); err != nil {
			return err
		}
		if next.ScaleSetID != cur.ScaleSetID && cur.LastMessageID != 0 {
			if _, err := c.exec(ctx, `UPDATE scale_sets SET last_message_id = 0 WHERE id = ?`, int64(next.ID)); err != nil {
				return s.wrapErr("reset last message id", err)
			}
		}
		out = next
		return nil
	})
	return out, err
}

// DeleteScaleSet removes the scale set; ErrInvalid while it has instances; nil if missing.
func (s *Store) DeleteScaleSet(ctx context.Context, id uint) error {
	return s.write(ctx, func(c conn) error {
		ok, err := c.exists(ctx, c.forUpdate(`SELECT 1 FROM scale_sets WHERE id = ?`), int64(id))
		if err != nil || !ok {
			return err
		}
		used, err := c.exists(ctx, `SELECT 1 FROM instances WHERE scale_set_id = ? LIMIT 1`, int64(id))
		if err != nil {
			return err
		}
		if used {
			return invalid("scale set has runners")
		}
		_, err = c.exec(ctx, `DELETE FROM scale_sets WHERE id = ?`, int64(id))
		if s.d.foreignKey(err) {
			return invalid("scale set has runners")
		}
		return s.wrapErr("delete scale set", err)
	})
}

// ClaimScaleSetSession acquires or renews the session claim for owner; see
// store.ScaleSets.
func (s *Store) ClaimScaleSetSession(ctx context.Context, id uint, owner string, ttl time.Duration) (garrison.ScaleSetSession, bool, error) {
	var (
		prev garrison.ScaleSetSession
		got  bool
	)
	if strings.TrimSpace(owner) == "" {
		return prev, false, invalid("missing session owner")
	}
	ctx = store.WithoutFence(ctx) // taking a claim is never fenced
	err := s.write(ctx, func(c conn) error {
		t := now()
		got = false
		err := c.row(ctx, c.forUpdate(`SELECT session_owner, session_id, session_expires_at, session_token FROM scale_sets WHERE id = ?`),
			int64(id)).Scan(&prev.Owner, &prev.SessionID, utc(&prev.ExpiresAt), &prev.Token)
		if err != nil {
			return s.noRows(err, "read scale set session", "scale set %d not found", id)
		}
		if prev.HeldByOther(owner, t) {
			return nil
		}
		token := prev.Token
		if prev.Owner != owner {
			token++
		}
		_, err = c.exec(ctx, `UPDATE scale_sets SET session_owner = ?, session_expires_at = ?, session_token = ? WHERE id = ?`,
			owner, t.Add(ttl), token, int64(id))
		got = err == nil
		return s.wrapErr("claim scale set session", err)
	})
	if err != nil || !got {
		return prev, false, err
	}
	if prev.Owner != "" && prev.Owner != owner {
		s.takeovers.add(store.ClaimScaleSet)
	}
	if prev.Owner != owner {
		prev.Token++
	}
	return prev, true, nil
}

// SetScaleSetSessionID records the forge session id of the claim's owner.
func (s *Store) SetScaleSetSessionID(ctx context.Context, id uint, owner, sessionID string) error {
	return s.ownerWrite(ctx, id, owner, `UPDATE scale_sets SET session_id = ? WHERE id = ?`, sessionID, int64(id))
}

// ReleaseScaleSetSession gives the claim up if owner holds it.
func (s *Store) ReleaseScaleSetSession(ctx context.Context, id uint, owner string) error {
	return s.write(store.WithoutFence(ctx), func(c conn) error {
		_, err := c.exec(ctx, `UPDATE scale_sets SET session_owner = '', session_expires_at = NULL
			WHERE id = ? AND session_owner = ?`, int64(id), owner)
		return s.wrapErr("release scale set session", err)
	})
}

// RecordScaleSetMessage stores the listener's progress; see store.ScaleSets.
func (s *Store) RecordScaleSetMessage(ctx context.Context, id uint, owner string, messageID int64, desired int) error {
	return s.ownerWrite(ctx, id, owner, `UPDATE scale_sets SET desired_runner_count = ?,
		last_message_id = CASE WHEN last_message_id < ? THEN ? ELSE last_message_id END WHERE id = ?`,
		int64(desired), messageID, messageID, int64(id))
}

// ownerWrite runs an update of the scale set when owner holds its session claim.
func (s *Store) ownerWrite(ctx context.Context, id uint, owner, query string, args ...any) error {
	return s.write(ctx, func(c conn) error {
		var cur garrison.ScaleSetSession
		err := c.row(ctx, c.forUpdate(`SELECT session_owner, session_expires_at FROM scale_sets WHERE id = ?`),
			int64(id)).Scan(&cur.Owner, utc(&cur.ExpiresAt))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("scale set %d not found", id)
		}
		if err != nil {
			return s.wrap("read scale set session", err)
		}
		if cur.Owner != owner || !cur.ExpiresAt.After(now()) {
			return conflict("the session of scale set %d is not held by %s", id, owner)
		}
		_, err = c.exec(ctx, query, args...)
		return s.wrapErr("update scale set session", err)
	})
}

// setScaleSetTags replaces the tags of a scale set, keeping their order.
func (s *Store) setScaleSetTags(ctx context.Context, c conn, id uint, tags []garrison.Tag) ([]garrison.Tag, error) {
	tags, err := s.ensureTags(ctx, c, tags)
	if err != nil {
		return nil, err
	}
	if _, err := c.exec(ctx, `DELETE FROM scale_set_tags WHERE scale_set_id = ?`, int64(id)); err != nil {
		return nil, s.wrap("clear scale set tags", err)
	}
	for i, t := range tags {
		_, err := c.exec(ctx, `INSERT INTO scale_set_tags (scale_set_id, tag_id, position) VALUES (?, ?, ?)`,
			int64(id), t.ID, i)
		if err != nil {
			return nil, s.wrap("add scale set tag", err)
		}
	}
	return tags, nil
}

// scaleSetTags loads the tags of the scale sets selected by where (on scale_sets aliased
// ss), keyed by scale set ID and in order.
func (s *Store) scaleSetTags(ctx context.Context, c conn, where string, args ...any) (map[uint][]garrison.Tag, error) {
	rows, err := c.query(ctx, `SELECT st.scale_set_id, t.id, t.name FROM scale_set_tags st
		JOIN tags t ON t.id = st.tag_id JOIN scale_sets ss ON ss.id = st.scale_set_id
		WHERE `+where+` ORDER BY st.scale_set_id, st.position`, args...)
	if err != nil {
		return nil, s.wrap("read scale set tags", err)
	}
	defer rows.Close()
	out := map[uint][]garrison.Tag{}
	for rows.Next() {
		var (
			id uint
			t  garrison.Tag
		)
		if err := rows.Scan(&id, &t.ID, &t.Name); err != nil {
			return nil, s.wrap("scan scale set tag", err)
		}
		out[id] = append(out[id], t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read scale set tags", err)
	}
	return out, nil
}

func tagNames(tags []garrison.Tag) []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = t.Name
	}
	return out
}

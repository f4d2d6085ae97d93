package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// instanceColumns are an instance's columns after id and name, in instanceArgs order.
const instanceColumns = `pool_id, scale_set_id, provider_name, provider_id, agent_id, os_type, os_name, os_version,
	os_arch, addresses, status, runner_status, provider_fault, create_attempt, token_fetched, jit_config,
	runner_group, generation, metadata_url, callback_url, heartbeat, job_id, created_at, updated_at`

const instanceSelect = `SELECT i.id, i.name, COALESCE(i.pool_id, ''), COALESCE(i.scale_set_id, 0), i.provider_name, i.provider_id, i.agent_id,
	i.os_type, i.os_name, i.os_version, i.os_arch, i.addresses, i.status, i.runner_status,
	i.provider_fault, i.create_attempt, i.token_fetched, i.jit_config, i.runner_group, i.generation,
	i.metadata_url, i.callback_url, @ts(i.heartbeat), i.job_id, @ts(i.created_at), @ts(i.updated_at) FROM instances i`

// instanceListSelect is instanceSelect without the sealed JIT config (read as NULL, so
// scanInstance leaves JITConfig nil): lists neither read nor unseal it.
const instanceListSelect = `SELECT i.id, i.name, COALESCE(i.pool_id, ''), COALESCE(i.scale_set_id, 0), i.provider_name, i.provider_id, i.agent_id,
	i.os_type, i.os_name, i.os_version, i.os_arch, i.addresses, i.status, i.runner_status,
	i.provider_fault, i.create_attempt, i.token_fetched, NULL, i.runner_group, i.generation,
	i.metadata_url, i.callback_url, @ts(i.heartbeat), i.job_id, @ts(i.created_at), @ts(i.updated_at) FROM instances i`

// scanInstance scans a row of instanceSelect (or instanceListSelect) and opens the JIT
// config, if the row has one.
func (s *Store) scanInstance(sc interface{ Scan(...any) error }) (garrison.Instance, error) {
	var (
		i   garrison.Instance
		jit []byte
	)
	err := sc.Scan(&i.ID, &i.Name, &i.PoolID, &i.ScaleSetID, &i.ProviderName, &i.ProviderID, &i.AgentID, &i.OSType,
		&i.OSName, &i.OSVersion, &i.OSArch, jsonCol{&i.Addresses}, &i.Status, &i.RunnerStatus,
		&i.ProviderFault, &i.CreateAttempt, &i.TokenFetched, &jit, &i.RunnerGroup, &i.Generation,
		&i.MetadataURL, &i.CallbackURL, utc(&i.Heartbeat), &i.JobID, utc(&i.CreatedAt), utc(&i.UpdatedAt))
	if err != nil {
		return i, err
	}
	if jit, err = s.unseal(jit); err != nil || jit == nil {
		return i, err
	}
	if err := json.Unmarshal(jit, &i.JITConfig); err != nil {
		return i, fmt.Errorf("sqlstore: decode jit config of %s: %w", i.Name, err)
	}
	return i, nil
}

// instanceArgs are the values of instanceColumns.
func (s *Store) instanceArgs(i garrison.Instance) ([]any, error) {
	var addrs any
	if len(i.Addresses) > 0 {
		a, err := jsonArg(i.Addresses)
		if err != nil {
			return nil, err
		}
		addrs = a
	}
	var jit any
	if len(i.JITConfig) > 0 {
		b, err := json.Marshal(i.JITConfig)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: encode jit config: %w", err)
		}
		if jit, err = s.seal(b); err != nil {
			return nil, err
		}
	}
	var pool, scaleSet any // NULL for the owner the instance does not have
	if i.PoolID != "" {
		pool = i.PoolID
	}
	if i.ScaleSetID != 0 {
		scaleSet = int64(i.ScaleSetID)
	}
	return []any{pool, scaleSet, i.ProviderName, i.ProviderID, i.AgentID, i.OSType, i.OSName, i.OSVersion,
		i.OSArch, addrs, i.Status, i.RunnerStatus, bytesArg(i.ProviderFault), int64(i.CreateAttempt),
		i.TokenFetched, jit, i.RunnerGroup, int64(i.Generation), i.MetadataURL, i.CallbackURL,
		timeArg(i.Heartbeat), i.JobID, i.CreatedAt, i.UpdatedAt}, nil
}

// CreateInstance stores a new instance with a new ID; ErrConflict if the name (or a
// non-empty provider id of the same provider) is taken; ErrNotFound if the pool does not
// exist. Status messages are not stored; use AddInstanceEvent.
func (s *Store) CreateInstance(ctx context.Context, i garrison.Instance) (garrison.Instance, error) {
	if strings.TrimSpace(i.Name) == "" {
		return garrison.Instance{}, invalid("missing instance name")
	}
	i.ID = newID()
	i.CreatedAt = now()
	i.UpdatedAt = i.CreatedAt
	msgs := i.StatusMessages
	i.StatusMessages = []garrison.Event{}
	args, err := s.instanceArgs(i)
	if err != nil {
		return garrison.Instance{}, err
	}
	err = s.write(ctx, func(c conn) error {
		if err := s.checkInstanceOwner(ctx, c, i); err != nil {
			return err
		}
		_, err := c.exec(ctx, `INSERT INTO instances (id, name, `+instanceColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			append([]any{i.ID, i.Name}, args...)...)
		if err := s.instanceWriteErr(err, i); err != nil || len(msgs) == 0 {
			return err
		}
		i.StatusMessages, err = s.addInstanceEvents(ctx, c, i.ID, nil, msgs)
		return err
	})
	if err != nil {
		return garrison.Instance{}, err
	}
	return i, nil
}

// checkInstanceOwner checks that the instance has exactly one owner, a pool or a scale
// set, and that it exists (locking it against a concurrent delete).
func (s *Store) checkInstanceOwner(ctx context.Context, c conn, i garrison.Instance) error {
	switch {
	case (i.PoolID == "") == (i.ScaleSetID == 0):
		return invalid("an instance belongs to exactly one pool or scale set")
	case i.ScaleSetID != 0:
		ok, err := c.exists(ctx, c.forUpdate(`SELECT 1 FROM scale_sets WHERE id = ?`), int64(i.ScaleSetID))
		if err == nil && !ok {
			err = notFound("scale set %d not found", i.ScaleSetID)
		}
		return err
	}
	ok, err := c.exists(ctx, c.forUpdate(`SELECT 1 FROM pools WHERE id = ?`), i.PoolID)
	if err == nil && !ok {
		err = notFound("pool %s not found", i.PoolID)
	}
	return err
}

// instanceWriteErr maps the error of an instance insert or update.
func (s *Store) instanceWriteErr(err error, i garrison.Instance) error {
	switch {
	case err == nil:
		return nil
	case s.d.unique(err) && i.ProviderID != "":
		return conflict("instance %s or provider id %s already exists", i.Name, i.ProviderID)
	case s.d.unique(err):
		return conflict("instance %s already exists", i.Name)
	case s.d.foreignKey(err) && i.ScaleSetID != 0:
		return notFound("scale set %d not found", i.ScaleSetID)
	case s.d.foreignKey(err):
		return notFound("pool %s not found", i.PoolID)
	}
	return s.wrap("store instance", err)
}

// Instance looks an instance up by name, with its newest status messages.
func (s *Store) Instance(ctx context.Context, name string) (garrison.Instance, error) {
	return s.instanceBy(ctx, "name", name)
}

// InstanceByID looks an instance up by ID, with its newest status messages.
func (s *Store) InstanceByID(ctx context.Context, id string) (garrison.Instance, error) {
	return s.instanceBy(ctx, "id", id)
}

func (s *Store) instanceBy(ctx context.Context, col, value string) (garrison.Instance, error) {
	var out garrison.Instance
	err := s.read(ctx, func(c conn) error {
		var err error
		out, err = s.instanceTx(ctx, c, instanceSelect+` WHERE i.`+col+` = ?`, value)
		return err
	})
	return out, err
}

// instanceTx reads the instance selected by query and its status messages.
func (s *Store) instanceTx(ctx context.Context, c conn, query, key string) (garrison.Instance, error) {
	i, err := s.scanInstance(c.row(ctx, query, key))
	if err != nil {
		return i, s.noRows(err, "read instance", "instance %s not found", key)
	}
	if i.StatusMessages, err = instanceEvents.list(ctx, c, i.ID, 0); err != nil {
		return i, s.wrap("read status messages", err)
	}
	return i, nil
}

// ListInstances returns the instances matching f, without status messages and with a
// nil JITConfig (not read, not unsealed), in creation order.
func (s *Store) ListInstances(ctx context.Context, f store.InstanceFilter) ([]garrison.Instance, error) {
	var w filter
	w.when(f.PoolID != "", `i.pool_id = ?`, f.PoolID)
	w.when(f.ScaleSetID != 0, `i.scale_set_id = ?`, int64(f.ScaleSetID))
	w.when(f.EntityID != "", `i.pool_id IN (SELECT id FROM pools WHERE entity_id = ?)`, f.EntityID)
	rows, err := s.reader().query(ctx, instanceListSelect+w.where()+` ORDER BY i.created_at, i.name`, w.args...)
	if err != nil {
		return nil, s.wrap("list instances", err)
	}
	return collect(rows, s.scanInstance, s.wrap)
}

// UpdateInstance runs fn on the instance under a write lock and stores the result. ID,
// Name, PoolID, ScaleSetID and CreatedAt cannot change and status messages are not written;
// ErrConflict if the provider id becomes a duplicate.
func (s *Store) UpdateInstance(ctx context.Context, name string, fn func(*garrison.Instance) error) (garrison.Instance, error) {
	var out garrison.Instance
	err := s.write(ctx, func(c conn) error {
		var err error
		out, err = s.updateInstanceTx(ctx, c, name, fn)
		return err
	})
	return out, err
}

// errUnchanged is returned by an update function that leaves its row as it was: nothing
// is written.
var errUnchanged = errors.New("sqlstore: unchanged")

// updateInstanceTx is UpdateInstance inside the write c.
func (s *Store) updateInstanceTx(ctx context.Context, c conn, name string, fn func(*garrison.Instance) error) (garrison.Instance, error) {
	cur, err := s.instanceTx(ctx, c, c.forUpdate(instanceSelect+` WHERE i.name = ?`), name)
	if err != nil {
		return cur, err
	}
	next := cur
	next.StatusMessages = slices.Clip(cur.StatusMessages) // fn's appends must not write into cur's
	if err := fn(&next); err != nil {
		return garrison.Instance{}, err
	}
	added := appendedEvents(cur.StatusMessages, next.StatusMessages)
	next.ID, next.Name, next.PoolID, next.CreatedAt, next.UpdatedAt = cur.ID, cur.Name, cur.PoolID, cur.CreatedAt, now()
	next.ScaleSetID = cur.ScaleSetID
	next.StatusMessages = cur.StatusMessages
	args, err := s.instanceArgs(next)
	if err != nil {
		return garrison.Instance{}, err
	}
	_, err = c.exec(ctx, `UPDATE instances SET (`+instanceColumns+`) =
		(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE id = ?`,
		append(args, next.ID)...)
	if err := s.instanceWriteErr(err, next); err != nil {
		return garrison.Instance{}, err
	}
	if len(added) > 0 {
		if next.StatusMessages, err = s.addInstanceEvents(ctx, c, next.ID, cur.StatusMessages, added); err != nil {
			return garrison.Instance{}, err
		}
	}
	return next, nil
}

// appendedEvents returns the status messages an UpdateInstance function appended to the
// instance's: those past the ones it was given.
func appendedEvents(before, after []garrison.Event) []garrison.Event {
	if len(after) <= len(before) {
		return nil
	}
	return after[len(before):]
}

// addInstanceEvents records status messages of the instance inside a write and returns
// the newest it keeps: kept (the ones the write read) and the new ones, as stored, without
// reading them back.
func (s *Store) addInstanceEvents(ctx context.Context, c conn, id string, kept, evs []garrison.Event) ([]garrison.Event, error) {
	list := slices.Clone(kept)
	for _, ev := range evs {
		stored, err := instanceEvents.add(ctx, c, id, ev)
		if err != nil {
			return nil, s.wrapErr("add status message", err)
		}
		list = append(list, stored)
	}
	if over := len(list) - instanceEvents.keep; over > 0 {
		list = list[over:]
	}
	return list, nil
}

// DeleteInstance removes the instance and its status messages; nil if missing.
func (s *Store) DeleteInstance(ctx context.Context, name string) error {
	return s.write(ctx, func(c conn) error {
		_, err := c.exec(ctx, `DELETE FROM instances WHERE name = ?`, name)
		return s.wrapErr("delete instance", err)
	})
}

// AddInstanceEvent records a status message, keeping the newest MaxStatusMessages;
// ErrNotFound if the instance does not exist.
func (s *Store) AddInstanceEvent(ctx context.Context, name string, ev garrison.Event) error {
	return s.write(ctx, func(c conn) error {
		var id string
		if err := c.row(ctx, c.forUpdate(`SELECT id FROM instances WHERE name = ?`), name).Scan(&id); err != nil {
			return s.noRows(err, "read instance", "instance %s not found", name)
		}
		_, err := instanceEvents.add(ctx, c, id, ev)
		return s.wrapErr("add status message", err)
	})
}

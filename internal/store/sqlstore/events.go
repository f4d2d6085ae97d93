package sqlstore

import (
	"context"
	"strings"

	"github.com/garrison-ci/garrison"
)

// MaxEntityEvents is how many events are kept per entity.
const MaxEntityEvents = 100

// eventTable describes a table of events owned by another row.
type eventTable struct {
	table, owner string // table name and owner-id column
	keep         int    // newest rows kept per owner
}

var (
	entityEvents   = eventTable{table: "entity_events", owner: "entity_id", keep: MaxEntityEvents}
	instanceEvents = eventTable{table: "instance_events", owner: "instance_id", keep: garrison.MaxStatusMessages}
)

// add inserts an event for ownerID, its message cut to garrison.MaxEventMessageBytes, and
// drops the owner's events beyond the newest keep. NUL characters, which PostgreSQL
// cannot store in text, become U+FFFD on every backend. It returns the event as stored
// (id, time at stored precision, message as cut): as a read would give it.
func (t eventTable) add(ctx context.Context, c conn, ownerID string, ev garrison.Event) (garrison.Event, error) {
	if ev.CreatedAt.IsZero() {
		ev.CreatedAt = now()
	}
	ev.CreatedAt = ev.CreatedAt.UTC().Truncate(precision)
	ev.Message = garrison.TruncateMessage(strings.ReplaceAll(ev.Message, "\x00", "\uFFFD"))
	err := c.row(ctx, `INSERT INTO `+t.table+` (`+t.owner+`, created_at, type, level, message)
		VALUES (?, ?, ?, ?, ?) RETURNING id`, ownerID, timeArg(ev.CreatedAt), ev.Type, ev.Level, ev.Message).Scan(&ev.ID)
	if err != nil {
		return ev, err
	}
	_, err = c.exec(ctx, `DELETE FROM `+t.table+` WHERE `+t.owner+` = ? AND id <= (
		SELECT id FROM `+t.table+` WHERE `+t.owner+` = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
		ownerID, ownerID, t.keep)
	return ev, err
}

// list returns the newest limit events of ownerID (all kept when limit <= 0), oldest first.
func (t eventTable) list(ctx context.Context, c conn, ownerID string, limit int) ([]garrison.Event, error) {
	if limit <= 0 || limit > t.keep {
		limit = t.keep
	}
	rows, err := c.query(ctx, `SELECT id, @ts(created_at), type, level, message FROM (
		SELECT id, created_at, type, level, message FROM `+t.table+` WHERE `+t.owner+` = ?
		ORDER BY id DESC LIMIT ?) newest ORDER BY id`, ownerID, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanEvent, func(op string, err error) error { return err })
}

// scanEvent reads an event; a message stored before messages were capped is cut on the
// way out.
func scanEvent(sc interface{ Scan(...any) error }) (garrison.Event, error) {
	var ev garrison.Event
	err := sc.Scan(&ev.ID, utc(&ev.CreatedAt), &ev.Type, &ev.Level, &ev.Message)
	ev.Message = garrison.TruncateMessage(ev.Message)
	return ev, err
}

// AddEntityEvent records an event, keeping the newest MaxEntityEvents; ErrNotFound if the
// entity does not exist.
func (s *Store) AddEntityEvent(ctx context.Context, entityID string, ev garrison.Event) error {
	return s.write(ctx, func(c conn) error {
		ok, err := c.exists(ctx, c.forUpdate(`SELECT 1 FROM entities WHERE id = ?`), entityID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("entity %s not found", entityID)
		}
		_, err = entityEvents.add(ctx, c, entityID, ev)
		return s.wrapErr("add entity event", err)
	})
}

// EntityEvents returns up to limit of the newest events of the entity, oldest first;
// limit <= 0 returns all kept. ErrNotFound if the entity does not exist.
func (s *Store) EntityEvents(ctx context.Context, entityID string, limit int) ([]garrison.Event, error) {
	var out []garrison.Event
	err := s.read(ctx, func(c conn) error {
		ok, err := c.exists(ctx, `SELECT 1 FROM entities WHERE id = ?`, entityID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("entity %s not found", entityID)
		}
		out, err = entityEvents.list(ctx, c, entityID, limit)
		return s.wrapErr("list entity events", err)
	})
	return out, err
}

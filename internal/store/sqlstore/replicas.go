package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Heartbeat records that the replica is alive now; see store.Replicas.
func (s *Store) Heartbeat(ctx context.Context, r garrison.Replica) (garrison.Replica, error) {
	if strings.TrimSpace(r.ID) == "" {
		return r, invalid("missing replica id")
	}
	r.HeartbeatAt = now()
	if r.StartedAt.IsZero() {
		r.StartedAt = r.HeartbeatAt
	}
	r.StartedAt = r.StartedAt.UTC().Truncate(precision)
	err := s.write(store.WithoutFence(ctx), func(c conn) error {
		_, err := c.exec(ctx, `INSERT INTO replicas (id, address, version, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET address = excluded.address, version = excluded.version,
			started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
			r.ID, r.Address, r.Version, r.StartedAt, r.HeartbeatAt)
		return s.wrapErr("heartbeat", err)
	})
	return r, err
}

// ListReplicas lists the replicas by ID.
func (s *Store) ListReplicas(ctx context.Context) ([]garrison.Replica, error) {
	rows, err := s.reader().query(ctx, `SELECT id, address, version, started_at, heartbeat_at FROM replicas ORDER BY id`)
	if err != nil {
		return nil, s.wrap("list replicas", err)
	}
	defer rows.Close()
	var out []garrison.Replica
	for rows.Next() {
		var r garrison.Replica
		if err := rows.Scan(&r.ID, &r.Address, &r.Version, utc(&r.StartedAt), utc(&r.HeartbeatAt)); err != nil {
			return nil, s.wrap("scan replica", err)
		}
		out = append(out, r)
	}
	return out, s.wrapErr("list replicas", rows.Err())
}

// RemoveReplica removes a replica's row; nil if missing.
func (s *Store) RemoveReplica(ctx context.Context, id string) error {
	return s.write(store.WithoutFence(ctx), func(c conn) error {
		_, err := c.exec(ctx, `DELETE FROM replicas WHERE id = ?`, id)
		return s.wrapErr("remove replica", err)
	})
}

// PruneReplicas removes the replicas last seen before t.
func (s *Store) PruneReplicas(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.write(store.WithoutFence(ctx), func(c conn) error {
		res, err := c.exec(ctx, `DELETE FROM replicas WHERE heartbeat_at < ?`, before.UTC())
		if err != nil {
			return s.wrap("prune replicas", err)
		}
		n, err = res.RowsAffected()
		return s.wrapErr("prune replicas", err)
	})
	return int(n), err
}

// ListClaims lists the leases and the scale sets' session claims by kind and key.
func (s *Store) ListClaims(ctx context.Context) ([]garrison.Claim, error) {
	var out []garrison.Claim
	err := s.read(ctx, func(c conn) error {
		rows, err := c.query(ctx, `SELECT name, holder, token, expires_at FROM leases`)
		if err != nil {
			return s.wrap("list leases", err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				cl   garrison.Claim
				name string
			)
			if err := rows.Scan(&name, &cl.Holder, &cl.Token, utc(&cl.ExpiresAt)); err != nil {
				return s.wrap("scan lease", err)
			}
			cl.Kind, cl.Key, _ = strings.Cut(name, "/")
			out = append(out, cl)
		}
		if err := rows.Err(); err != nil {
			return s.wrap("list leases", err)
		}
		return s.sessionClaims(ctx, c, &out)
	})
	if err != nil {
		return nil, err
	}
	sortClaims(out)
	return out, nil
}

// sessionClaims appends the session claims of the scale sets ever claimed.
func (s *Store) sessionClaims(ctx context.Context, c conn, out *[]garrison.Claim) error {
	rows, err := c.query(ctx, `SELECT id, session_owner, session_token, session_expires_at FROM scale_sets WHERE session_token > 0`)
	if err != nil {
		return s.wrap("list session claims", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id int64
			cl = garrison.Claim{Kind: store.ClaimScaleSet}
		)
		if err := rows.Scan(&id, &cl.Holder, &cl.Token, utc(&cl.ExpiresAt)); err != nil {
			return s.wrap("scan session claim", err)
		}
		cl.Key = strconv.FormatInt(id, 10)
		*out = append(*out, cl)
	}
	return s.wrapErr("list session claims", rows.Err())
}

// sortClaims orders claims by kind, then key (numbers by value).
func sortClaims(cs []garrison.Claim) {
	slices.SortFunc(cs, func(a, b garrison.Claim) int {
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		if len(a.Key) != len(b.Key) && isDigits(a.Key) && isDigits(b.Key) {
			return cmp.Compare(len(a.Key), len(b.Key))
		}
		return cmp.Compare(a.Key, b.Key)
	})
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

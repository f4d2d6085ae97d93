package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Lease acquires or renews the named lease for holder until ttl from now, and reports
// whether holder has it. A lease held by another holder is taken over once it expired.
func (s *Store) Lease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	var got bool
	for range maxAttempts {
		err := s.write(ctx, func(c conn) error {
			var err error
			got, err = s.leaseTx(ctx, c, name, holder, ttl)
			return err
		})
		if !errors.Is(err, errLeaseRace) {
			return got, err
		}
	}
	return false, nil // another replica keeps inserting it: it is theirs
}

// errLeaseRace marks an insert that lost a race with another replica.
var errLeaseRace = errors.New("lease created concurrently")

func (s *Store) leaseTx(ctx context.Context, c conn, name, holder string, ttl time.Duration) (bool, error) {
	t := now()
	until := t.Add(ttl)
	var cur string
	var expires time.Time
	err := c.row(ctx, c.forUpdate(`SELECT holder, expires_at FROM leases WHERE name = ?`), name).Scan(&cur, utc(&expires))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = c.exec(ctx, `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)`, name, holder, until)
		if s.d.unique(err) {
			return false, errLeaseRace
		}
		if err != nil {
			return false, s.wrap("create lease", err)
		}
		return true, nil
	case err != nil:
		return false, s.wrap("read lease", err)
	case cur != holder && expires.After(t):
		return false, nil
	}
	if _, err := c.exec(ctx, `UPDATE leases SET holder = ?, expires_at = ? WHERE name = ?`, holder, until, name); err != nil {
		return false, s.wrap("renew lease", err)
	}
	return true, nil
}

// ReleaseLease gives up the named lease if holder has it.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.write(ctx, func(c conn) error {
		_, err := c.exec(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder)
		if err != nil {
			return s.wrap("release lease", err)
		}
		return nil
	})
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
)

// Lease acquires or renews the named lease for holder until ttl from now, and reports
// whether holder has it, with its fence. A lease held by another holder is taken over
// once it expired, with the next token.
func (s *Store) Lease(ctx context.Context, name, holder string, ttl time.Duration) (store.Fence, bool, error) {
	ctx = store.WithoutFence(ctx) // taking a claim is never fenced
	for range maxAttempts {
		var l leaseResult
		err := s.write(ctx, func(c conn) error {
			var err error
			l, err = s.leaseTx(ctx, c, name, holder, ttl)
			return err
		})
		if errors.Is(err, errLeaseRace) {
			continue
		}
		if err != nil || !l.got {
			return store.Fence{}, false, err
		}
		if l.tookOver {
			s.takeovers.add(store.ClaimKind(name))
		}
		return store.Fence{Claim: name, Token: l.token}, true, nil
	}
	return store.Fence{}, false, nil // another replica keeps inserting it: it is theirs
}

// errLeaseRace marks an insert that lost a race with another replica.
var errLeaseRace = errors.New("lease created concurrently")

// leaseResult is what leaseTx did.
type leaseResult struct {
	token    int64
	got      bool
	tookOver bool // from another holder whose lease expired
}

// leaseTx takes or renews the lease in a transaction and returns its token. A holder that
// is not the last one (a takeover, or a claim of a released lease) gets the next token.
func (s *Store) leaseTx(ctx context.Context, c conn, name, holder string, ttl time.Duration) (leaseResult, error) {
	t := now()
	until := t.Add(ttl)
	var (
		cur     string
		expires time.Time
		token   int64
	)
	err := c.row(ctx, c.forUpdate(`SELECT holder, expires_at, token FROM leases WHERE name = ?`), name).
		Scan(&cur, utc(&expires), &token)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = c.exec(ctx, `INSERT INTO leases (name, holder, expires_at, token) VALUES (?, ?, ?, 1)`, name, holder, until)
		if s.d.unique(err) {
			return leaseResult{}, errLeaseRace
		}
		if err != nil {
			return leaseResult{}, s.wrap("create lease", err)
		}
		return leaseResult{token: 1, got: true}, nil
	case err != nil:
		return leaseResult{}, s.wrap("read lease", err)
	case cur != holder && cur != "" && expires.After(t):
		return leaseResult{}, nil
	}
	res := leaseResult{token: token, got: true}
	if cur != holder {
		res.token++
		res.tookOver = cur != ""
	}
	if _, err := c.exec(ctx, `UPDATE leases SET holder = ?, expires_at = ?, token = ? WHERE name = ?`, holder, until, res.token, name); err != nil {
		return leaseResult{}, s.wrap("renew lease", err)
	}
	return res, nil
}

// ReleaseLease gives up the named lease if holder has it. The row stays, with its token,
// so that the next holder's token is larger than any this holder wrote with.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.write(store.WithoutFence(ctx), func(c conn) error {
		_, err := c.exec(ctx, `UPDATE leases SET holder = '', expires_at = ? WHERE name = ? AND holder = ?`, now(), name, holder)
		if err != nil {
			return s.wrap("release lease", err)
		}
		return nil
	})
}

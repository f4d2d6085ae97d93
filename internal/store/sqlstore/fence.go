package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// checkFence refuses the transaction's write with garrison.ErrFenced when ctx carries a
// fence whose claim has a newer token. The claim's row is read with a share lock, and a
// takeover changes a token only after locking the row for update, so no takeover commits
// between the check and the write: a write is either made before the takeover or
// refused after it.
func (s *Store) checkFence(ctx context.Context, c conn) error {
	f, ok := store.FenceOf(ctx)
	if !ok {
		return nil
	}
	cur, err := s.fenceToken(ctx, c, f.Claim)
	if err != nil {
		return err
	}
	if cur > f.Token {
		s.refusals.add(f.Kind())
		return fmt.Errorf("%s: claim %s: token %d, the claim is at %d: %w", s.d.Name, f.Claim, f.Token, cur, garrison.ErrFenced)
	}
	return nil
}

// fenceToken reads the current token of a claim; a claim that does not exist (a scale
// set deleted since) has an infinitely newer one.
func (s *Store) fenceToken(ctx context.Context, c conn, claim string) (int64, error) {
	var (
		query string
		key   any = claim
	)
	switch kind, rest, _ := strings.Cut(claim, "/"); kind {
	case store.ClaimScaleSet:
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			return 0, invalid("bad claim %q", claim)
		}
		// The writes under a scale set's claim lock or update the scale set's own row
		// (CreateInstance reads it FOR UPDATE): a share lock taken here would have to be
		// upgraded, and two such writes at once (a scale-up stores its runners in
		// parallel) deadlock. Lock it for update at once: they take turns.
		query, key = c.forUpdate(`SELECT session_token FROM scale_sets WHERE id = ?`), id
	default:
		query = `SELECT token FROM leases WHERE name = ?` + c.d.ForShare
	}
	var cur int64
	err := c.row(ctx, query, key).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return int64(^uint64(0) >> 1), nil
	}
	if err != nil {
		return 0, s.wrap("read claim token", err)
	}
	return cur, nil
}

// counters count events by claim kind.
type counters struct {
	mu sync.Mutex // guards n
	n  map[string]uint64
}

func (r *counters) add(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]uint64{}
	}
	r.n[kind]++
}

func (r *counters) snapshot() map[string]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]uint64, len(r.n))
	for k, v := range r.n {
		out[k] = v
	}
	return out
}

// FencingRefusals returns how many writes were refused because their fence was stale,
// by claim kind, since the store was opened.
func (s *Store) FencingRefusals() map[string]uint64 { return s.refusals.snapshot() }

// ClaimTakeovers returns how many claims this store took over from another holder whose
// claim had expired, by claim kind, since the store was opened.
func (s *Store) ClaimTakeovers() map[string]uint64 { return s.takeovers.snapshot() }

package github

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/garrison-ci/garrison"
)

// How a credential's calls resume after a rate limit, so that the forge does not see a
// burst at the instant the limit ends:
//
//   - While a limit runs (a secondary limit's Retry-After, a backoff, or a spent budget
//     until its reset) and for ReleaseWindow after it ended, calls are released one at a
//     time, at least ReleaseSpacing apart, each a little later by a random jitter.
//   - A call whose turn is further than MaxWait away is not kept waiting: it fails at once
//     with a *garrison.RateLimitError whose Until is a random point of the release window
//     after its turn, so callers that come back later come back spread out too.
//   - A rate-limit answer to a call sent after the previous limit ended (the forge has not
//     caught up with its own reset time, or keeps refusing) backs off exponentially with
//     jitter: the n-th such answer in a row blocks the credential for a random time in
//     [b/2, b], b = RetryBackoff·2^(n-1), at most MaxBackoff.

// limitUntilLocked returns when the limits on key's resource end (the zero time when
// none runs). t.mu is held.
func (t *rateTransport) limitUntilLocked(key string) time.Time {
	until := t.blocked
	res := t.resource[key]
	if res == "" {
		res = "core"
	}
	if b, ok := t.budgets[res]; ok && b.Limit > 0 && b.Remaining == 0 {
		if reset := time.Unix(b.Reset, 0); reset.After(until) {
			until = reset
		}
	}
	return until
}

// waitTurn returns when the call may be sent: at once when no limit runs or ended
// recently; otherwise at its turn (see above), or at once with a *garrison.RateLimitError
// when that turn is more than maxWait away.
func (t *rateTransport) waitTurn(ctx context.Context, key string) error {
	for {
		d, err := t.takeTurn(key)
		if err != nil || d <= 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.clock.After(d):
		}
		// The limit may have been extended meanwhile (another call's answer): look again.
		t.mu.Lock()
		until := t.limitUntilLocked(key)
		t.mu.Unlock()
		if !until.After(t.clock.Now()) {
			return nil
		}
	}
}

// takeTurn gives the call its turn and says how long to wait for it.
func (t *rateTransport) takeTurn(key string) (time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	until := t.limitUntilLocked(key)
	if until.After(now) && until.After(t.limitEnd) {
		t.limitEnd = until
	}
	if !until.After(now) && (t.limitEnd.IsZero() || !now.Before(t.limitEnd.Add(t.releaseWindow))) {
		return 0, nil // no limit runs or ended recently
	}
	turn := maxTime(until, t.nextTurn, now)
	if turn.Sub(now) > t.maxWait {
		return 0, &garrison.RateLimitError{Until: turn.Add(t.jitter(t.releaseWindow)), Credentials: t.cred}
	}
	t.nextTurn = turn.Add(t.releaseSpacing)
	return turn.Sub(now) + t.jitter(t.releaseSpacing/2), nil
}

// limited records a rate-limit answer to a call sent at sent: it blocks the credential
// for what the forge asked (forgeWait), or longer by the exponential backoff when the
// forge asked for nothing usable or refused again a call sent after the previous limit
// answer (a strike). Answers to calls that were in flight together are one strike. It
// returns the block's end.
func (t *rateTransport) limited(kind limitKind, forgeWait time.Duration, sent time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	wait := forgeWait
	if kind == secondaryLimit {
		wait = max(wait, time.Minute) // GitHub: wait at least a minute
	}
	if t.lastLimit.IsZero() || !sent.Before(t.lastLimit) {
		t.strikes++
		t.lastLimit = now
		if t.strikes > 1 || wait <= 0 {
			wait = max(wait, t.backoffLocked())
		}
	}
	if until := now.Add(wait); until.After(t.blocked) {
		t.blocked = until
	}
	return t.blocked
}

// answered records an answer that was no rate limit, to a call sent at sent: when the
// call was sent after the last limit answer, the forge has caught up.
func (t *rateTransport) answered(sent time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !sent.Before(t.lastLimit) {
		t.strikes = 0
	}
}

// backoffLocked is the jittered exponential backoff of the current strike.
func (t *rateTransport) backoffLocked() time.Duration {
	b := t.retryBackoff
	for i := 1; i < t.strikes && b < t.maxBackoff; i++ {
		b *= 2
	}
	b = min(b, t.maxBackoff)
	return b/2 + t.jitter(b/2+1)
}

// jitter returns a random duration in [0, d).
func (t *rateTransport) jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(t.rand(int64(d)))
}

func maxTime(a time.Time, more ...time.Time) time.Time {
	for _, b := range more {
		if b.After(a) {
			a = b
		}
	}
	return a
}

// defaultRand is the jitter source: uniform in [0, n).
func defaultRand(n int64) int64 { return rand.Int64N(n) }

// pacingDefaults fills the pacing and backoff options left zero.
func pacingDefaults(o Options) Options {
	if o.ReleaseSpacing <= 0 {
		o.ReleaseSpacing = 250 * time.Millisecond
	}
	if o.ReleaseWindow <= 0 {
		o.ReleaseWindow = 10 * time.Second
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Minute
	}
	if o.MaxBackoff < o.RetryBackoff {
		o.MaxBackoff = o.RetryBackoff
	}
	if o.Rand == nil {
		o.Rand = defaultRand
	}
	return o
}

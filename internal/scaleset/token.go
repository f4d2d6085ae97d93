package scaleset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
)

// openSession is a session this replica opened and the service that serves it.
type openSession struct {
	svc       Service
	forgeID   int
	renewedAt time.Time // when the claim was last written (guarded by Controller.mu)
	token     int64     // the claim's fencing token (guarded by Controller.mu)

	mu      sync.Mutex
	session Session   // with the current queue token
	tokenAt time.Time // when the queue token was issued (by our clock)
	poll    pollState
}

func newOpenSession(svc Service, forgeID int, s Session, now time.Time, token int64) *openSession {
	return &openSession{svc: svc, forgeID: forgeID, renewedAt: now, session: s, tokenAt: now, token: token}
}

func (os *openSession) current() Session {
	os.mu.Lock()
	defer os.mu.Unlock()
	return os.session
}

func (os *openSession) renewed(s Session, now time.Time) {
	os.mu.Lock()
	defer os.mu.Unlock()
	os.session, os.tokenAt = s, now
}

// maxTokenMargin caps how long before its expiry a queue token is renewed.
const maxTokenMargin = 5 * time.Minute

// tokenDue reports whether the session's queue token should be renewed before its next
// use: within a quarter of its lifetime (at most maxTokenMargin) of its expiry. A token
// without a known expiry is renewed only when refused.
func (os *openSession) tokenDue(now time.Time) bool {
	os.mu.Lock()
	defer os.mu.Unlock()
	exp := os.session.QueueTokenExpires
	if exp.IsZero() {
		return false
	}
	margin := min(exp.Sub(os.tokenAt)/4, maxTokenMargin)
	return !now.Before(exp.Add(-margin))
}

// refreshToken renews the session's queue token.
func (c *Controller) refreshToken(ctx context.Context, ss garrison.ScaleSet, os *openSession, why string) error {
	s, err := os.svc.RefreshSession(ctx, os.forgeID, os.current())
	if err != nil {
		return err
	}
	os.renewed(s, c.o.Now())
	c.log.Debug("scaleset: queue token refreshed", c.attrs(ss, "why", why)...)
	return nil
}

// withToken runs call with the session. The queue token is renewed ahead of its expiry,
// so that a listener in steady state never sees it refused (a failed early renewal is
// tried again at the next call; the token still works meanwhile). One refused anyway (a
// clock skew, a revocation) is renewed and the call tried once more. A token that cannot
// be renewed drops the session: the next step opens a new one.
func (c *Controller) withToken(ctx context.Context, ss garrison.ScaleSet, os *openSession, call func(Session) error) error {
	if os.tokenDue(c.o.Now()) {
		if err := c.refreshToken(ctx, ss, os, "expires soon"); err != nil {
			c.log.Warn("scaleset: renewing a queue token ahead of its expiry", c.attrs(ss, slog.Any("err", err))...)
		}
	}
	err := call(os.current())
	if !errors.Is(err, ErrQueueTokenExpired) {
		return err
	}
	c.o.Metrics.tokenRefused()
	rerr := c.refreshToken(ctx, ss, os, "refused")
	if rerr == nil {
		if err = call(os.current()); !errors.Is(err, ErrQueueTokenExpired) {
			return err
		}
	}
	c.forgetSession(ss.ID, os)
	c.deleteForgeSession(ctx, os)
	return fmt.Errorf("scaleset %d: queue token could not be renewed: %w", ss.ID, errors.Join(err, rerr))
}

// forgetSession drops os from this replica's table if it is still the scale set's
// session (a long poll may end after its session was replaced).
func (c *Controller) forgetSession(id uint, os *openSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions[id] == os {
		delete(c.sessions, id)
		c.o.Metrics.sessionClosed()
		os.stopPoll()
	}
}

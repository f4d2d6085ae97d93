package scaleset

import (
	"context"
	"errors"
	"sync"
)

// Queue polls one session's message queue and keeps its queue token valid. It is safe
// for concurrent use. When the service closed the session (deleted by another listener,
// or lapsed), the refresh fails with garrison.ErrNotFound: create a new session.
type Queue struct {
	c  *Client
	mu sync.Mutex
	s  Session
}

// Queue returns a queue over a session (new, or stored by an earlier process).
func (c *Client) Queue(s Session) *Queue { return &Queue{c: c, s: s} }

// Session returns the session with its current queue token.
func (q *Queue) Session() Session {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.s
}

// Get long-polls for the next message (nil, nil when none came within the hold).
func (q *Queue) Get(ctx context.Context, lastMessageID int64, maxCapacity int) (*Message, error) {
	var m *Message
	err := q.withToken(ctx, func(s Session) (err error) {
		m, err = q.c.GetMessage(ctx, s, lastMessageID, maxCapacity)
		return err
	})
	return m, err
}

// Ack deletes (acknowledges) a message.
func (q *Queue) Ack(ctx context.Context, messageID int64) error {
	return q.withToken(ctx, func(s Session) error { return q.c.DeleteMessage(ctx, s, messageID) })
}

// Acquire acquires the jobs of JobAvailable events.
func (q *Queue) Acquire(ctx context.Context, requestIDs []int64) ([]int64, error) {
	var ids []int64
	err := q.withToken(ctx, func(s Session) (err error) {
		ids, err = q.c.AcquireJobs(ctx, s, requestIDs)
		return err
	})
	return ids, err
}

// Refresh renews the queue token now.
func (q *Queue) Refresh(ctx context.Context) error {
	q.mu.Lock()
	id, set := q.s.ID, q.s.ScaleSetID
	q.mu.Unlock()
	s, err := q.c.RefreshSession(ctx, set, id)
	if err != nil {
		return err
	}
	q.mu.Lock()
	q.s = s
	q.mu.Unlock()
	return nil
}

// Close deletes the session.
func (q *Queue) Close(ctx context.Context) error {
	s := q.Session()
	return q.c.DeleteSession(ctx, s.ScaleSetID, s.ID)
}

// withToken runs call with a token that does not expire within Options.QueueRefreshBefore,
// and once more after a refresh when the token was refused.
func (q *Queue) withToken(ctx context.Context, call func(Session) error) error {
	s := q.Session()
	if q.c.refresh > 0 && !s.QueueTokenExpires.IsZero() && q.c.now().Add(q.c.refresh).After(s.QueueTokenExpires) {
		if err := q.Refresh(ctx); err != nil {
			return err
		}
		s = q.Session()
	}
	err := call(s)
	if !errors.Is(err, ErrTokenExpired) {
		return err
	}
	if err := q.Refresh(ctx); err != nil {
		return err
	}
	return call(q.Session())
}

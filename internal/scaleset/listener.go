package scaleset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// again asks the queue to run the listener again at once: the next long poll.
var again = workqueue.Result{RequeueAfter: time.Millisecond}

// handle is one listener step for the scale set with the given id, on the work queue: hold
// the session (claim, open or take over), scale to the stored desired count, process the
// message the session's long poll brought, if any, and start the next poll off the queue
// (pollStep). Failures return an error: the queue retries the key after a jittered,
// growing backoff, which is the listener's reconnect backoff.
func (c *Controller) handle(ctx context.Context, key string) (workqueue.Result, error) {
	return c.step(ctx, key, false)
}

// step is handle; inline long-polls in the caller's goroutine instead (Step).
func (c *Controller) step(ctx context.Context, key string, inline bool) (workqueue.Result, error) {
	n, err := strconv.ParseUint(key, 10, 32)
	if err != nil {
		return workqueue.Result{}, workqueue.Terminal(fmt.Errorf("scaleset: bad key %q", key))
	}
	id := uint(n)
	ss, err := c.o.Store.ScaleSet(ctx, id)
	if errors.Is(err, garrison.ErrNotFound) {
		c.closeSession(ctx, id)
		return workqueue.Result{}, nil
	}
	if err != nil {
		return workqueue.Result{}, err
	}
	e, err := c.o.Store.Entity(ctx, ss.EntityID)
	if err != nil {
		return workqueue.Result{}, err
	}
	svc, err := c.o.Services.Service(ctx, e)
	if err != nil {
		return workqueue.Result{}, fmt.Errorf("scaleset %d: actions service of %s: %w", id, e.FullName(), err)
	}
	if !ss.Enabled || ss.ScaleSetID == 0 {
		// Disabled (SS-14): no session and no scale-up; scale-down still applies.
		c.closeSession(ctx, id)
		return workqueue.Result{}, c.scale(ctx, ss, svc, false)
	}
	prev, got, err := c.claim(ctx, id)
	if err != nil {
		return workqueue.Result{}, err
	}
	if !got {
		c.forget(id) // another replica holds it (again): ours, if any, is no longer used
		return workqueue.Result{RequeueAfter: c.o.ClaimTTL / 2}, nil
	}
	// The step's writes are fenced by the claim: refused once another replica took it over.
	ctx = store.WithFence(ctx, store.Fence{Claim: store.ScaleSetClaim(id), Token: prev.Token})
	if ss, err = c.checkScaleSet(ctx, ss, e); err != nil {
		return workqueue.Result{}, err
	}
	os, err := c.ensureSession(ctx, ss, prev, svc)
	if errors.Is(err, garrison.ErrNotFound) {
		c.setChecked(id, false) // the scale set may be gone: look before the next try
	}
	if errors.Is(err, ErrSessionConflict) {
		c.log.Info("scaleset: the service has another session open; waiting", c.attrs(ss, slog.Duration("hold", c.o.ConflictHold))...)
		c.o.Metrics.conflict()
		return workqueue.Result{RequeueAfter: c.o.ConflictHold, Hold: true}, nil
	}
	if err != nil {
		return workqueue.Result{}, err
	}
	if ss, err = c.o.Store.ScaleSet(ctx, id); err != nil { // with the seeded desired count
		return workqueue.Result{}, err
	}
	if names, err := c.recycleStranded(ctx, ss, svc); err != nil {
		c.log.Warn("scaleset: looking for stranded runners", c.attrs(ss, slog.Any("err", err))...)
	} else if len(names) > 0 {
		c.o.OnInstances(names...)
	}
	if err := c.scale(ctx, ss, svc, true); err != nil {
		return workqueue.Result{}, err
	}
	if !inline {
		return c.pollStep(ctx, key, ss, os)
	}
	if err := c.listenOnce(ctx, ss, os); err != nil {
		return workqueue.Result{}, err
	}
	return again, nil
}

// claim acquires or renews the session claim. A claim this replica renewed less than
// half its lifetime ago is kept without a store write.
func (c *Controller) claim(ctx context.Context, id uint) (garrison.ScaleSetSession, bool, error) {
	now := c.o.Now()
	c.mu.Lock()
	os := c.sessions[id]
	fresh := os != nil && now.Before(os.renewedAt.Add(c.o.ClaimTTL/2))
	var token int64
	if fresh {
		token = os.token
	}
	c.mu.Unlock()
	if fresh {
		return garrison.ScaleSetSession{Owner: c.o.Owner, SessionID: os.current().ID, Token: token}, true, nil
	}
	prev, got, err := c.o.Store.ClaimScaleSetSession(ctx, id, c.o.Owner, c.o.ClaimTTL)
	if got && os != nil {
		c.mu.Lock()
		os.renewedAt, os.token = now, prev.Token
		c.mu.Unlock()
	}
	return prev, got, err
}

// ensureSession returns the session this replica holds for the scale set, opening one
// when it has none. A claim just taken over from a dead holder first closes the session
// that holder left open on the service.
func (c *Controller) ensureSession(ctx context.Context, ss garrison.ScaleSet, prev garrison.ScaleSetSession, svc Service) (*openSession, error) {
	c.mu.Lock()
	os := c.sessions[ss.ID]
	c.mu.Unlock()
	if os != nil && os.forgeID == ss.ScaleSetID {
		return os, nil
	}
	if prev.SessionID != "" && (prev.Owner != c.o.Owner || os == nil) {
		if err := svc.DeleteSession(ctx, ss.ScaleSetID, prev.SessionID); err != nil {
			c.log.Warn("scaleset: closing the session left by an earlier holder", c.attrs(ss, slog.Any("err", err))...)
		} else {
			c.log.Info("scaleset: took over the session of an earlier holder", c.attrs(ss, slog.String("from", prev.Owner))...)
		}
	}
	s, err := svc.CreateSession(ctx, ss.ScaleSetID, c.o.Owner)
	if err != nil {
		return nil, err
	}
	os = newOpenSession(svc, ss.ScaleSetID, s, c.o.Now(), prev.Token)
	if err := c.o.Store.SetScaleSetSessionID(ctx, ss.ID, c.o.Owner, s.ID); err != nil {
		c.deleteForgeSession(ctx, os)
		return nil, err
	}
	// The session's statistics seed scaling before the first message (forge-api §8.2).
	if err := c.o.Store.RecordScaleSetMessage(ctx, ss.ID, c.o.Owner, 0, s.Statistics.TotalAssignedJobs); err != nil {
		c.deleteForgeSession(ctx, os)
		return nil, err
	}
	c.mu.Lock()
	c.sessions[ss.ID] = os
	c.mu.Unlock()
	c.o.Metrics.sessionOpened()
	c.log.Info("scaleset: message session opened", c.attrs(ss, slog.String("session", s.ID))...)
	return os, nil
}

// listenOnce long-polls one message and processes it. The message id and desired count
// are stored before the message is acknowledged: a crash in between redelivers a
// message the next poll skips by its id.
func (c *Controller) listenOnce(ctx context.Context, ss garrison.ScaleSet, os *openSession) error {
	msg, err := c.getMessage(ctx, ss, os)
	if err != nil || msg == nil {
		return err
	}
	return c.handleMessage(ctx, ss, os, msg)
}

// getMessage long-polls the session's queue once.
func (c *Controller) getMessage(ctx context.Context, ss garrison.ScaleSet, os *openSession) (*Message, error) {
	var msg *Message
	err := c.withToken(ctx, ss, os, func(s Session) error {
		var err error
		msg, err = os.svc.GetMessage(ctx, s, ss.LastMessageID, int(ss.MaxRunners))
		return err
	})
	return msg, err
}

// handleMessage processes a message the long poll brought, stores its id and the
// desired count, acknowledges it and scales.
func (c *Controller) handleMessage(ctx context.Context, ss garrison.ScaleSet, os *openSession, msg *Message) error {
	c.o.Metrics.message(ss.Name)
	if msg.ID <= ss.LastMessageID {
		return c.ack(ctx, ss, os, msg.ID) // processed before a crash: only the ack was lost
	}
	if err := c.process(ctx, ss, os, msg); err != nil {
		return err // not acked: the service redelivers it
	}
	err := c.o.Store.RecordScaleSetMessage(ctx, ss.ID, c.o.Owner, msg.ID, msg.Statistics.TotalAssignedJobs)
	if errors.Is(err, garrison.ErrConflict) {
		c.forget(ss.ID) // the claim lapsed and another replica has it
		return err
	}
	if err != nil {
		return err
	}
	if err := c.ack(ctx, ss, os, msg.ID); err != nil {
		c.log.Warn("scaleset: acknowledging a processed message", c.attrs(ss, slog.Int64("message", msg.ID), slog.Any("err", err))...)
	}
	if ss, err = c.o.Store.ScaleSet(ctx, ss.ID); err != nil {
		return err
	}
	return c.scale(ctx, ss, os.svc, true)
}

func (c *Controller) ack(ctx context.Context, ss garrison.ScaleSet, os *openSession, id int64) error {
	return c.withToken(ctx, ss, os, func(s Session) error { return os.svc.AckMessage(ctx, s, id) })
}

// closeSession closes the session this replica holds for the scale set, if any, and
// gives up the claim.
func (c *Controller) closeSession(ctx context.Context, id uint) {
	os := c.forget(id)
	if os == nil {
		return
	}
	c.deleteForgeSession(ctx, os)
	if err := c.o.Store.SetScaleSetSessionID(ctx, id, c.o.Owner, ""); err != nil && !errors.Is(err, garrison.ErrConflict) && !errors.Is(err, garrison.ErrNotFound) {
		c.log.Warn("scaleset: clearing the session id", slog.Uint64("scaleset", uint64(id)), slog.Any("err", err))
	}
	if err := c.o.Store.ReleaseScaleSetSession(ctx, id, c.o.Owner); err != nil {
		c.log.Warn("scaleset: releasing the session claim", slog.Uint64("scaleset", uint64(id)), slog.Any("err", err))
	}
	c.log.Info("scaleset: message session closed", slog.Uint64("scaleset", uint64(id)))
}

// forget drops the session from this replica's table and returns it.
func (c *Controller) forget(id uint) *openSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	os := c.sessions[id]
	if os != nil {
		delete(c.sessions, id)
		c.o.Metrics.sessionClosed()
		os.stopPoll()
	}
	return os
}

func (c *Controller) deleteForgeSession(ctx context.Context, os *openSession) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := os.svc.DeleteSession(ctx, os.forgeID, os.current().ID); err != nil {
		c.log.Warn("scaleset: deleting a message session", slog.Int("scale_set_id", os.forgeID), slog.Any("err", err))
	}
}

func (c *Controller) attrs(ss garrison.ScaleSet, more ...any) []any {
	return append([]any{slog.Uint64("scaleset", uint64(ss.ID)), slog.String("name", ss.Name)}, more...)
}

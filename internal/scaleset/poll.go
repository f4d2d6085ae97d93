package scaleset

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// pollResult is what a long poll brought: a message, none (202) or an error.
type pollResult struct {
	msg *Message
	err error
}

// pollState is a session's long poll (guarded by openSession.mu).
type pollState struct {
	running bool
	cancel  context.CancelFunc
	result  *pollResult // delivered and not yet taken
}

// takePoll returns the delivered result, if any, and whether a poll is still running.
func (os *openSession) takePoll() (*pollResult, bool) {
	os.mu.Lock()
	defer os.mu.Unlock()
	r := os.poll.result
	os.poll.result = nil
	return r, os.poll.running
}

func (os *openSession) deliver(r pollResult) {
	os.mu.Lock()
	defer os.mu.Unlock()
	os.poll.running, os.poll.cancel, os.poll.result = false, nil, &r
}

// stopPoll cancels the session's poll in flight, if any.
func (os *openSession) stopPoll() {
	os.mu.Lock()
	defer os.mu.Unlock()
	if os.poll.cancel != nil {
		os.poll.cancel()
	}
}

// pollRetry is how soon a listener that found every poll slot taken tries again.
const pollRetry = time.Second

// pollStep is the queue's side of the long poll: it processes what the session's last
// poll brought and starts the next one in its own goroutine, so that no worker waits
// through a long poll. While a poll runs the step only renews the claim; the poll adds
// the key when it ends, and the key also comes back within a third of the claim's
// lifetime so that the claim is renewed however long the poll hangs.
func (c *Controller) pollStep(ctx context.Context, key string, ss garrison.ScaleSet, os *openSession) (workqueue.Result, error) {
	renew := workqueue.Result{RequeueAfter: c.o.ClaimTTL / 3}
	res, running := os.takePoll()
	if running {
		return renew, nil
	}
	if res != nil {
		if res.err != nil {
			return workqueue.Result{}, res.err
		}
		if res.msg != nil {
			if err := c.handleMessage(ctx, ss, os, res.msg); err != nil {
				return workqueue.Result{}, err
			}
			var err error
			if ss, err = c.o.Store.ScaleSet(ctx, ss.ID); err != nil { // with the new last message id
				return workqueue.Result{}, err
			}
		}
	}
	c.mu.Lock()
	parent := c.runCtx
	c.mu.Unlock()
	if parent == nil { // not running: the queue is driven by hand
		parent = context.WithoutCancel(ctx)
	}
	select {
	case c.pollSlots <- struct{}{}:
	default:
		return workqueue.Result{RequeueAfter: pollRetry}, nil
	}
	pctx, cancel := context.WithCancel(parent)
	os.mu.Lock()
	os.poll = pollState{running: true, cancel: cancel}
	os.mu.Unlock()
	c.polls.Add(1)
	go c.poll(pctx, key, ss, os)
	return renew, nil
}

// poll long-polls the session's queue once, off the work queue, hands the result to the
// session and adds the scale set's key. A panic is recovered and handed on as an error.
func (c *Controller) poll(ctx context.Context, key string, ss garrison.ScaleSet, os *openSession) {
	defer c.polls.Done()
	c.o.Metrics.pollRunning(1)
	defer c.o.Metrics.pollRunning(-1)
	defer c.queue.Add(key) // after the result is delivered
	defer func() { <-c.pollSlots }()
	var r pollResult
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("scaleset: long poll panicked", c.attrs(ss, slog.Any("panic", v), slog.String("stack", string(debug.Stack())))...)
			r = pollResult{err: fmt.Errorf("scaleset %d: long poll panicked: %v", ss.ID, v)}
		}
		os.deliver(r)
	}()
	r.msg, r.err = c.getMessage(ctx, ss, os)
}

package sqlstore

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
)

// writeGate serialises the write transactions of a backend with a single writer (SQLite)
// in the process, so that the order is decided here instead of by the driver's sleeps
// and the connection pool's queue: urgent writers (store.Urgent) go before ordinary ones,
// each class in arrival order.
type writeGate struct {
	mu     sync.Mutex      // guards the fields below
	held   bool            // a transaction holds the gate
	urgent []chan struct{} // waiting urgent writers, oldest first
	normal []chan struct{} // waiting ordinary writers, oldest first
}

// enter waits for the gate; it fails only when ctx ends first.
func (g *writeGate) enter(ctx context.Context) error {
	g.mu.Lock()
	if !g.held {
		g.held = true
		g.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	if store.IsUrgent(ctx) {
		g.urgent = append(g.urgent, ch)
	} else {
		g.normal = append(g.normal, ch)
	}
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.drop(ch) {
			return ctx.Err()
		}
		// The gate was handed over meanwhile: pass it on.
		g.leaveLocked()
		return ctx.Err()
	}
}

// enterTimed is enter that also says how long it waited for the gate.
func (g *writeGate) enterTimed(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	err := g.enter(ctx)
	return time.Since(start), err
}

// leave hands the gate to the next waiter, urgent ones first. An ordinary writer that
// handed it over then yields its processor: the waiter it woke is queued behind it, and
// a reconciler carrying on with CPU work would keep a waiting webhook delivery (urgent)
// off the CPU for up to the scheduler's 10 ms time slice. An urgent writer does not
// yield: its own answer is what is waited for.
func (g *writeGate) leave(ctx context.Context) {
	g.mu.Lock()
	handed := g.leaveLocked()
	g.mu.Unlock()
	if handed && !store.IsUrgent(ctx) {
		runtime.Gosched()
	}
}

func (g *writeGate) leaveLocked() bool {
	var next chan struct{}
	switch {
	case len(g.urgent) > 0:
		next, g.urgent = g.urgent[0], g.urgent[1:]
	case len(g.normal) > 0:
		next, g.normal = g.normal[0], g.normal[1:]
	default:
		g.held = false
		return false
	}
	close(next)
	return true
}

// drop removes a waiter that gave up; false when it was already handed the gate.
func (g *writeGate) drop(ch chan struct{}) bool {
	for _, q := range []*[]chan struct{}{&g.urgent, &g.normal} {
		for i, c := range *q {
			if c == ch {
				*q = append((*q)[:i], (*q)[i+1:]...)
				return true
			}
		}
	}
	return false
}

package events

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/garrison-ci/garrison"
)

// Queue sizes: the Hub's input, and each subscriber's outbound frames (WS-7).
const (
	InputQueue      = 4096
	SubscriberQueue = 1024
)

// Render turns a change into the payload of its event (the object as the REST API shows
// it). It runs on the Hub's goroutine, once per change that some subscriber wants.
type Render func(ctx context.Context, c garrison.Change) (any, error)

// Fallback is the payload used when Render fails: what GARM's delete payloads carry at
// least (EV-6).
type Fallback func(c garrison.Change) any

// frame is the event object of EV-4's table, keys in GARM's order.
type frame struct {
	Type    garrison.ChangeType `json:"entity-type"`
	Op      garrison.ChangeOp   `json:"operation"`
	Payload any                 `json:"payload"`
}

// Hub fans changes out to subscribers. The zero value is not usable; use NewHub.
type Hub struct {
	in      chan published
	seq     atomic.Uint64 // the number of the last change published
	active  atomic.Int32  // number of subscribers
	dropped atomic.Uint64 // changes or frames not delivered

	mu     sync.Mutex // guards subs and closed
	subs   map[*Sub]struct{}
	closed bool
}

// NewHub returns a Hub; call Run to start delivering.
func NewHub() *Hub {
	return &Hub{in: make(chan published, InputQueue), subs: map[*Sub]struct{}{}}
}

// published is a change numbered in publish order: a subscription applies to the changes
// published after it was set, whenever the Hub's goroutine gets to them.
type published struct {
	garrison.Change
	seq uint64
}

// Active reports whether anyone subscribes; writers skip the reads that only events need
// when nobody does.
func (h *Hub) Active() bool { return h != nil && h.active.Load() > 0 }

// Dropped is how many events were not delivered: changes that found the input full and
// frames that found a subscriber's queue full (garrison_events_dropped_total).
func (h *Hub) Dropped() uint64 { return h.dropped.Load() }

// Publish hands c to the Hub without ever blocking; with nobody subscribed it does nothing.
// Changes are delivered in the order they are published.
func (h *Hub) Publish(c garrison.Change) {
	if !h.Active() {
		return
	}
	select {
	case h.in <- published{c, h.seq.Add(1)}:
	default:
		h.dropped.Add(1)
	}
}

// Sub is one subscriber: it receives frames on C until Done is closed. It wants nothing
// until Set gives it a subscription.
type Sub struct {
	C       <-chan []byte
	c       chan []byte
	seq     *atomic.Uint64 // the Hub's publish counter
	want    atomic.Pointer[wanted]
	done    chan struct{}
	dropped atomic.Uint64
}

// wanted is a subscription and the number of the last change published before it was set.
type wanted struct {
	sub   Subscription
	after uint64
	prev  *wanted // the subscription it replaced, for changes published before (one kept)
}

// Set replaces what s wants (EV-1) for the changes published from now on: one published
// before, still on its way through the Hub, is matched against the subscription it was
// published under, so none was wanted before the first Set.
func (s *Sub) Set(sub Subscription) {
	w := &wanted{sub: sub, after: s.seq.Load()}
	if p := s.want.Load(); p != nil {
		w.prev = &wanted{sub: p.sub, after: p.after}
	}
	s.want.Store(w)
}

// Done is closed when the Hub stops or s is unsubscribed.
func (s *Sub) Done() <-chan struct{} { return s.done }

// Dropped is how many frames s lost because its queue was full.
func (s *Sub) Dropped() uint64 { return s.dropped.Load() }

func (s *Sub) wants(c published) bool {
	for w := s.want.Load(); w != nil; w = w.prev {
		if c.seq > w.after {
			return w.sub.Matches(c.Type, c.Op)
		}
	}
	return false
}

// Subscribe adds a subscriber with a queue of SubscriberQueue frames. After the Hub has
// stopped, the subscriber it returns is already done.
func (h *Hub) Subscribe() *Sub {
	c := make(chan []byte, SubscriberQueue)
	s := &Sub{C: c, c: c, seq: &h.seq, done: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(s.done)
		return s
	}
	h.subs[s] = struct{}{}
	h.active.Add(1)
	return s
}

// Unsubscribe removes s; it is safe to call more than once and after the Hub stopped.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		h.active.Add(-1)
		close(s.done)
	}
}

// Run delivers published changes until ctx ends, then ends every subscription. render
// makes the payload; fallback replaces it when render fails.
func (h *Hub) Run(ctx context.Context, render Render, fallback Fallback, log *slog.Logger) {
	defer h.stop()
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-h.in:
			h.deliver(ctx, c, render, fallback, log)
		}
	}
}

// deliver renders c once for the subscribers that want it and queues the frame to each.
func (h *Hub) deliver(ctx context.Context, p published, render Render, fallback Fallback, log *slog.Logger) {
	targets := h.targets(p)
	if len(targets) == 0 {
		return
	}
	c := p.Change
	payload, err := render(ctx, c)
	if err != nil {
		log.DebugContext(ctx, "rendering an event; sending the short payload", "entity_type", c.Type, "operation", c.Op, "err", err)
		payload = fallback(c)
	}
	b, err := json.Marshal(frame{Type: c.Type, Op: c.Op, Payload: payload})
	if err != nil {
		log.ErrorContext(ctx, "encoding an event", "entity_type", c.Type, "err", err)
		return
	}
	for _, s := range targets {
		select {
		case s.c <- b:
		default:
			s.dropped.Add(1)
			h.dropped.Add(1)
		}
	}
}

func (h *Hub) targets(c published) []*Sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*Sub
	for s := range h.subs {
		if s.wants(c) {
			out = append(out, s)
		}
	}
	return out
}

// stop ends every subscription; later Subscribe calls get finished subscribers.
func (h *Hub) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		h.active.Add(-1)
		close(s.done)
	}
}

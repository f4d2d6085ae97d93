// Package logstream copies the server's log records to the clients of the log stream
// (GET /api/v1/ws/logs, streams-metrics.md §1.3) without ever making the logger wait.
//
// Handler wraps the server's slog handler: every record it passes on is also encoded as
// one slog JSON line (LS-2, trailing newline included) and queued to each subscriber.
// A subscriber whose queue is full loses the record, counted, while the others and the
// log file do not (LS-6). While nobody subscribes, the copy costs one atomic load.
package logstream

import (
	"sync"
	"sync/atomic"
)

// SubscriberQueue is how many records a subscriber may have waiting (WS-7).
const SubscriberQueue = 1024

// Hub holds the subscribers of the log stream.
type Hub struct {
	active  atomic.Int32
	dropped atomic.Uint64

	mu   sync.RWMutex // guards subs
	subs map[*Sub]struct{}
}

// NewHub returns a Hub without subscribers.
func NewHub() *Hub { return &Hub{subs: map[*Sub]struct{}{}} }

// Sub receives log lines on C until it is unsubscribed.
type Sub struct {
	C       <-chan []byte
	c       chan []byte
	dropped atomic.Uint64
}

// Dropped is how many lines this subscriber lost to a full queue.
func (s *Sub) Dropped() uint64 { return s.dropped.Load() }

// Subscribe adds a subscriber; it sees the records logged from now on (no backlog).
func (h *Hub) Subscribe() *Sub {
	c := make(chan []byte, SubscriberQueue)
	s := &Sub{C: c, c: c}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	h.active.Add(1)
	return s
}

// Unsubscribe removes s; calling it again does nothing.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		h.active.Add(-1)
	}
}

// Active reports whether anyone subscribes.
func (h *Hub) Active() bool { return h.active.Load() > 0 }

// Dropped is how many lines were lost across all subscribers
// (garrison_events_dropped_total{stream="logs"}).
func (h *Hub) Dropped() uint64 { return h.dropped.Load() }

// Write queues a copy of one log line to every subscriber, dropping it for those whose
// queue is full. It never blocks and never fails.
func (h *Hub) Write(p []byte) (int, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(h.subs) == 0 {
		return len(p), nil
	}
	line := append([]byte(nil), p...)
	for s := range h.subs {
		select {
		case s.c <- line:
		default:
			s.dropped.Add(1)
			h.dropped.Add(1)
		}
	}
	return len(p), nil
}

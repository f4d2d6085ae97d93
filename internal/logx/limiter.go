// Package logx holds small logging helpers on top of log/slog.
package logx

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Limiter logs each kind of line at most once per interval. The lines of a kind it drops
// are counted, and the next line of that kind it lets through says how many with a
// "suppressed" attribute. Kinds are the caller's names for its lines ("list", "budget", a
// delivery result); keep them to a bounded set, as the Limiter remembers every kind it has
// seen. A Limiter is safe for concurrent use.
type Limiter struct {
	log   *slog.Logger
	every time.Duration
	now   func() time.Time

	mu         sync.Mutex // guards last and suppressed
	last       map[string]time.Time
	suppressed map[string]int
}

// NewLimiter returns a Limiter that writes to log (nil: discarded) at most once per every
// for each kind (every <= 0: every line), reading the time from now (nil: time.Now).
func NewLimiter(log *slog.Logger, every time.Duration, now func() time.Time) *Limiter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{log: log, every: every, now: now, last: map[string]time.Time{}, suppressed: map[string]int{}}
}

// Log logs msg with args at level, unless a line of the same kind was logged less than
// the interval ago.
func (l *Limiter) Log(ctx context.Context, level slog.Level, kind, msg string, args ...any) {
	if !l.log.Enabled(ctx, level) {
		return
	}
	n, ok := l.take(kind)
	if !ok {
		return
	}
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	l.log.Log(ctx, level, msg, args...)
}

// take reports whether a line of kind may be logged now and, if so, how many lines of
// kind were dropped since the last one logged.
func (l *Limiter) take(kind string) (int, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if last, ok := l.last[kind]; ok && now.Sub(last) < l.every {
		l.suppressed[kind]++
		return 0, false
	}
	n := l.suppressed[kind]
	l.last[kind] = now
	delete(l.suppressed, kind)
	return n, true
}

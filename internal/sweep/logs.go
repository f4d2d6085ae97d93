package sweep

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// logLimiter logs each kind of message at most once per interval.
type logLimiter struct {
	log   *slog.Logger
	every time.Duration
	now   func() time.Time

	mu   sync.Mutex // guards last
	last map[string]time.Time
}

func (l *logLimiter) logf(ctx context.Context, level slog.Level, kind, msg string, args ...any) {
	now := l.now()
	l.mu.Lock()
	if t, ok := l.last[kind]; ok && now.Sub(t) < l.every {
		l.mu.Unlock()
		return
	}
	l.last[kind] = now
	l.mu.Unlock()
	l.log.Log(ctx, level, msg, args...)
}

package logx_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/garrison-ci/garrison/internal/logx"
)

// recorder is a slog.Handler that keeps each record as "LEVEL msg k=v ...".
type recorder struct {
	level slog.Level
	mu    sync.Mutex // guards lines
	lines []string
}

func (r *recorder) Enabled(_ context.Context, l slog.Level) bool { return l >= r.level }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler           { return r }
func (r *recorder) WithGroup(string) slog.Handler                { return r }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", rec.Level, rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, b.String())
	return nil
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.lines
	r.lines = nil
	return out
}

// step logs one line of kind at level, after the clock moved by wait.
type step struct {
	wait  time.Duration
	level slog.Level
	kind  string
	want  string // the line logged, "" when the step is dropped
}

func TestLimiter(t *testing.T) {
	info, warn := slog.LevelInfo, slog.LevelWarn
	tests := []struct {
		name  string
		every time.Duration
		min   slog.Level // the handler's level
		steps []step
	}{
		{"first line of a kind is logged", time.Minute, info, []step{
			{0, warn, "a", "WARN a n=0"},
		}},
		{"repeats inside the interval are dropped", time.Minute, info, []step{
			{0, warn, "a", "WARN a n=0"},
			{time.Second, warn, "a", ""},
			{58 * time.Second, warn, "a", ""},
		}},
		{"after the interval the next line says how many were dropped", time.Minute, info, []step{
			{0, warn, "a", "WARN a n=0"},
			{time.Second, warn, "a", ""},
			{time.Second, warn, "a", ""},
			{time.Minute, warn, "a", "WARN a n=3 suppressed=2"},
			{time.Minute, warn, "a", "WARN a n=4"},
		}},
		{"the interval counts from the last line logged", time.Minute, info, []step{
			{0, info, "a", "INFO a n=0"},
			{50 * time.Second, info, "a", ""},
			{10 * time.Second, info, "a", "INFO a n=2 suppressed=1"},
			{59 * time.Second, info, "a", ""},
		}},
		{"kinds are limited apart", time.Minute, info, []step{
			{0, warn, "a", "WARN a n=0"},
			{0, warn, "b", "WARN b n=1"},
			{time.Second, warn, "a", ""},
			{0, info, "c", "INFO c n=3"},
			{0, warn, "b", ""},
		}},
		{"a kind keeps its interval whatever the level", time.Minute, info, []step{
			{0, warn, "a", "WARN a n=0"},
			{time.Second, info, "a", ""},
			{time.Minute, slog.LevelError, "a", "ERROR a n=2 suppressed=1"},
		}},
		{"lines below the handler's level neither log nor count", time.Minute, warn, []step{
			{0, info, "a", ""},
			{time.Second, warn, "a", "WARN a n=1"},
			{time.Second, info, "a", ""},
			{time.Minute, warn, "a", "WARN a n=3"},
		}},
		{"no interval logs every line", 0, info, []step{
			{0, warn, "a", "WARN a n=0"},
			{0, warn, "a", "WARN a n=1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
			rec := &recorder{level: tt.min}
			l := logx.NewLimiter(slog.New(rec), tt.every, func() time.Time { return now })
			for i, s := range tt.steps {
				now = now.Add(s.wait)
				l.Log(t.Context(), s.level, s.kind, s.kind, "n", i)
				got := rec.take()
				switch {
				case s.want == "" && len(got) != 0:
					t.Fatalf("step %d: logged %q, want nothing", i, got)
				case s.want != "" && (len(got) != 1 || got[0] != s.want):
					t.Fatalf("step %d: logged %q, want %q", i, got, s.want)
				}
			}
		})
	}
}

// TestLimiterDefaults checks a Limiter without a logger or a clock: it discards its lines,
// and it reads time.Now, here the fake clock of a synctest bubble.
func TestLimiterDefaults(t *testing.T) {
	logx.NewLimiter(nil, time.Minute, nil).Log(t.Context(), slog.LevelError, "a", "dropped")

	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{level: slog.LevelInfo}
		l := logx.NewLimiter(slog.New(rec), time.Minute, nil)
		l.Log(t.Context(), slog.LevelInfo, "a", "one")
		l.Log(t.Context(), slog.LevelInfo, "a", "two")
		time.Sleep(time.Minute)
		l.Log(t.Context(), slog.LevelInfo, "a", "three")
		got := strings.Join(rec.take(), "; ")
		if want := "INFO one; INFO three suppressed=1"; got != want {
			t.Fatalf("logged %q, want %q", got, want)
		}
	})
}

// TestLimiterConcurrent logs one kind from many goroutines inside one interval: exactly
// one line gets through, and the next one after the interval counts all the others.
func TestLimiterConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{level: slog.LevelInfo}
		l := logx.NewLimiter(slog.New(rec), time.Minute, nil)
		const n = 50
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() { l.Log(t.Context(), slog.LevelWarn, "k", "busy") })
		}
		wg.Wait()
		time.Sleep(time.Minute)
		l.Log(t.Context(), slog.LevelWarn, "k", "busy")
		got := strings.Join(rec.take(), "; ")
		if want := fmt.Sprintf("WARN busy; WARN busy suppressed=%d", n-1); got != want {
			t.Fatalf("logged %q, want %q", got, want)
		}
	})
}

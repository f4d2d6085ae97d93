package logstream

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func newLogger(level slog.Level) (*slog.Logger, *Hub, *bytes.Buffer) {
	var file bytes.Buffer
	opts := &slog.HandlerOptions{Level: level}
	hub := NewHub()
	return slog.New(Handler(slog.NewTextHandler(&file, opts), hub, opts)), hub, &file
}

// TestHandlerCopies: each record the log takes also reaches every subscriber as one JSON
// line with attributes and groups; records below the level reach neither.
func TestHandlerCopies(t *testing.T) {
	logger, hub, file := newLogger(slog.LevelInfo)
	if FromLogger(logger) != hub {
		t.Fatal("FromLogger does not find the hub")
	}
	a, b := hub.Subscribe(), hub.Subscribe()
	logger.Debug("hidden")
	logger.With("pool_mgr", "acme/app").WithGroup("g").Info("hello", "k", 1)
	for _, s := range []*Sub{a, b} {
		if len(s.C) != 1 {
			t.Fatalf("subscriber has %d lines, want 1", len(s.C))
		}
		line := <-s.C
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil || !bytes.HasSuffix(line, []byte("\n")) {
			t.Fatalf("line %q: %v", line, err)
		}
		g, _ := rec["g"].(map[string]any)
		if rec["msg"] != "hello" || rec["level"] != "INFO" || rec["pool_mgr"] != "acme/app" || g["k"] != 1.0 {
			t.Errorf("record %v", rec)
		}
	}
	if strings.Contains(file.String(), "hidden") || !strings.Contains(file.String(), "msg=hello") {
		t.Errorf("log file %q", file.String())
	}
}

// TestSlowSubscriberDrops: a subscriber that never reads holds at most SubscriberQueue
// lines; the rest are dropped and counted, the logger never waits, and a reading
// subscriber loses nothing.
func TestSlowSubscriberDrops(t *testing.T) {
	logger, hub, file := newLogger(slog.LevelInfo)
	slow, fast := hub.Subscribe(), hub.Subscribe()
	var got int
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-fast.C:
				got++
			case <-stop:
				for len(fast.C) > 0 {
					<-fast.C
					got++
				}
				return
			}
		}
	})
	const n = SubscriberQueue + 500
	for i := range n {
		logger.Info("line", "i", i)
		for len(fast.C) > SubscriberQueue/2 { // let the fast reader keep up
			runtime.Gosched()
		}
	}
	close(stop)
	wg.Wait()
	if slow.Dropped() != 500 || len(slow.C) != SubscriberQueue {
		t.Errorf("slow: dropped %d, queued %d", slow.Dropped(), len(slow.C))
	}
	if got != n || fast.Dropped() != 0 {
		t.Errorf("fast got %d of %d, dropped %d", got, n, fast.Dropped())
	}
	if hub.Dropped() != 500 {
		t.Errorf("hub dropped %d", hub.Dropped())
	}
	if c := strings.Count(file.String(), "msg=line"); c != n {
		t.Errorf("log file has %d lines, want %d", c, n)
	}
}

// TestUnsubscribe: an unsubscribed client gets nothing more; a logger without a hub has
// none.
func TestUnsubscribe(t *testing.T) {
	logger, hub, _ := newLogger(slog.LevelInfo)
	s := hub.Subscribe()
	hub.Unsubscribe(s)
	hub.Unsubscribe(s)
	logger.Info("after")
	if len(s.C) != 0 || hub.Active() {
		t.Errorf("unsubscribed client got %d lines (active %v)", len(s.C), hub.Active())
	}
	if FromLogger(slog.New(slog.DiscardHandler)) != nil || FromLogger(nil) != nil {
		t.Error("FromLogger found a hub where there is none")
	}
}

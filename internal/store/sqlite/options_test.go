package sqlite

import (
	"bytes"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// TestBusyTimeout: the configured busy timeout is the busy_timeout pragma of the write
// handle and of the read connections.
func TestBusyTimeout(t *testing.T) {
	for _, d := range []time.Duration{0, 1500 * time.Millisecond, 42 * time.Second} {
		s, err := OpenWith(t.Context(), filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer(storetest.Passphrase),
			Options{BusyTimeout: d})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range []struct {
			name string
			db   *sql.DB
		}{{"write", s.w}, {"read", s.r}} {
			var ms int64
			if err := h.db.QueryRowContext(t.Context(), "PRAGMA busy_timeout").Scan(&ms); err != nil {
				t.Fatal(err)
			}
			if got := time.Duration(ms) * time.Millisecond; got != d {
				t.Errorf("%s handle: busy_timeout %s, want %s", h.name, got, d)
			}
		}
		if got := s.Options().BusyTimeout; got != d {
			t.Errorf("Options().BusyTimeout = %s, want %s", got, d)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStatementLog: with a statement log every statement is logged at debug level, with
// its text but not its argument values; without one nothing is.
func TestStatementLog(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := OpenWith(t.Context(), filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer(storetest.Passphrase),
		Options{BusyTimeout: time.Second, StatementLog: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	buf.Reset() // the migrations' statements
	if _, err := s.UserByName(t.Context(), "secret-looking-name"); err == nil {
		t.Fatal("found a user in an empty database")
	}
	out := buf.String()
	if !strings.Contains(out, "level=DEBUG") || !strings.Contains(out, `msg="sql statement"`) || !strings.Contains(out, "FROM users") {
		t.Errorf("the user lookup was not logged:\n%s", out)
	}
	if strings.Contains(out, "secret-looking-name") {
		t.Errorf("an argument value was logged:\n%s", out)
	}
}

// TestWriteWait: every write transaction tells Options.WriteWait how long it waited for
// the writer, and whether it was urgent; reads tell it nothing.
func TestWriteWait(t *testing.T) {
	type wait struct {
		urgent bool
		waited time.Duration
	}
	var mu sync.Mutex
	var waits []wait
	s, err := OpenWith(t.Context(), filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer(storetest.Passphrase),
		Options{BusyTimeout: time.Second, WriteWait: func(urgent bool, waited time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, wait{urgent, waited})
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	mu.Lock()
	waits = nil // the migrations' writes
	mu.Unlock()
	ep := func(name string) garrison.Endpoint {
		return garrison.Endpoint{Name: name, Type: garrison.GitHub, BaseURL: "https://" + name,
			APIBaseURL: "https://" + name + "/api/v3/", UploadBaseURL: "https://" + name + "/uploads/"}
	}
	if _, err := s.CreateEndpoint(t.Context(), ep("a.example.com")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateEndpoint(store.Urgent(t.Context()), ep("b.example.com")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListEndpoints(t.Context(), garrison.GitHub); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) != 2 || waits[0].urgent || !waits[1].urgent || waits[0].waited < 0 || waits[1].waited < 0 {
		t.Fatalf("write waits %+v, want an ordinary and an urgent one", waits)
	}
}

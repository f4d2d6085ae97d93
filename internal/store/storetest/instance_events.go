package storetest

import (
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// instanceEventCases check the bounds on status messages in the database itself, not only
// in what reads return.
var instanceEventCases = []testCase{
	{"InstanceEvents/CountCappedInDatabase", func(t *testing.T, b Backend, s store.Store) {
		if b.DB == nil {
			t.Skip("backend gives no database handle")
		}
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		ok(s.CreateInstance(ctx, newInstance("runner-2", f.pool.ID))).get(t)
		for k := range 3 {
			must(t, s.AddInstanceEvent(ctx, "runner-2", garrison.Event{Message: fmt.Sprint("other ", k)}))
		}
		const workers, each = 6, 10 // concurrent writers, as callbacks and the reconciler are
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for k := range each {
					if err := s.AddInstanceEvent(ctx, "runner-1", garrison.Event{Message: fmt.Sprint(w, "-", k)}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		db := b.DB(t, s)
		wantEqual(t, "rows of runner-1", countEvents(t, db, "runner-1"), garrison.MaxStatusMessages)
		wantEqual(t, "rows of runner-2", countEvents(t, db, "runner-2"), 3)
		wantEqual(t, "read", len(ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages), garrison.MaxStatusMessages)
	}},
	{"InstanceEvents/AppendedByUpdate", func(t *testing.T, b Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		must(t, s.AddInstanceEvent(ctx, "runner-1", garrison.Event{Message: "first"}))
		got := ok(s.UpdateInstance(ctx, "runner-1", func(i *garrison.Instance) error {
			i.Status = garrison.InstanceRunning
			i.StatusMessages = append(i.StatusMessages, garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "second"},
				garrison.Event{Message: "third"})
			return nil
		})).get(t)
		read := ok(s.Instance(ctx, "runner-1")).get(t)
		for what, in := range map[string]garrison.Instance{"returned": got, "read": read} {
			var msgs []string
			for _, ev := range in.StatusMessages {
				msgs = append(msgs, ev.Message)
				if ev.ID == 0 || ev.CreatedAt.IsZero() {
					t.Errorf("%s: message %q has no id or time: %+v", what, ev.Message, ev)
				}
			}
			wantEqual(t, what+" messages", strings.Join(msgs, ","), "first,second,third")
			wantEqual(t, what+" status", in.Status, garrison.InstanceRunning)
		}
		sameEvents(t, "returned against read", got.StatusMessages, read.StatusMessages)
		// A function that fails records neither its change nor its messages.
		_, err := s.UpdateInstance(ctx, "runner-1", func(i *garrison.Instance) error {
			i.StatusMessages = append(i.StatusMessages, garrison.Event{Message: "lost"})
			return garrison.ErrConflict
		})
		if err == nil {
			t.Fatal("a failing update function: no error")
		}
		wantEqual(t, "messages after a failed update", len(ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages), 3)
		// Appends beyond the cap keep the newest, in what the update returns too.
		got = ok(s.UpdateInstance(ctx, "runner-1", func(i *garrison.Instance) error {
			for k := range garrison.MaxStatusMessages {
				i.StatusMessages = append(i.StatusMessages, garrison.Event{Message: fmt.Sprint("m", k)})
			}
			return nil
		})).get(t)
		kept := ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages
		wantEqual(t, "kept", len(kept), garrison.MaxStatusMessages)
		wantEqual(t, "newest", kept[len(kept)-1].Message, fmt.Sprint("m", garrison.MaxStatusMessages-1))
		sameEvents(t, "returned against read beyond the cap", got.StatusMessages, kept)
		// A message given a time keeps it, at the stored precision; a long one is cut.
		at := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
		got = ok(s.UpdateInstance(ctx, "runner-1", func(i *garrison.Instance) error {
			i.StatusMessages = append(i.StatusMessages, garrison.Event{CreatedAt: at, Message: strings.Repeat("€", 1<<12)})
			return nil
		})).get(t)
		sameEvents(t, "returned against read of a timed, long message", got.StatusMessages,
			ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages)
	}},
	{"InstanceEvents/LongMessageCut", func(t *testing.T, b Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		long := strings.Repeat("x", 1001) + strings.Repeat("€", 1<<18) // 3 bytes each: cuts land inside
		must(t, s.AddInstanceEvent(ctx, "runner-1", garrison.Event{Type: garrison.EventStatus, Message: long}))
		must(t, s.AddEntityEvent(ctx, f.entity.ID, garrison.Event{Type: garrison.EventStatus, Message: long}))
		checkCutMessage(t, "instance event", ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages[0].Message, long)
		checkCutMessage(t, "entity event", ok(s.EntityEvents(ctx, f.entity.ID, 1)).get(t)[0].Message, long)
		if b.DB == nil {
			return
		}
		for _, table := range []string{"instance_events", "entity_events"} {
			var stored string
			must(t, b.DB(t, s).QueryRowContext(ctx, `SELECT message FROM `+table).Scan(&stored))
			checkCutMessage(t, "stored in "+table, stored, long)
		}
	}},
	{"InstanceEvents/NULReplaced", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		must(t, s.AddInstanceEvent(ctx, "runner-1", garrison.Event{Message: "exit\x00code 1"}))
		wantEqual(t, "message", ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages[0].Message, "exit\uFFFDcode 1")
	}},
	{"InstanceEvents/OversizedRowCutOnRead", func(t *testing.T, b Backend, s store.Store) {
		if b.DB == nil {
			t.Skip("backend gives no database handle")
		}
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		msg := strings.Repeat("ab", 1000)
		must(t, s.AddInstanceEvent(ctx, "runner-1", garrison.Event{Message: msg}))
		// A row written before messages were capped: grow it behind the store's back.
		for range 4 {
			msg += msg
			_, err := b.DB(t, s).ExecContext(ctx, `UPDATE instance_events SET message = message || message`)
			must(t, err)
		}
		checkCutMessage(t, "read", ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages[0].Message, msg)
	}},
}

// sameEvents fails unless the two lists hold the same events: ids, times, types,
// levels and messages.
func sameEvents(t *testing.T, what string, got, want []garrison.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || !g.CreatedAt.Equal(w.CreatedAt) || g.Type != w.Type || g.Level != w.Level || g.Message != w.Message {
			t.Fatalf("%s: event %d is %+v, want %+v", what, i, g, w)
		}
	}
}

// countEvents counts the status message rows of the named instance.
func countEvents(t *testing.T, db *sql.DB, instance string) int {
	t.Helper()
	var n int
	must(t, db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM instance_events e
		JOIN instances i ON i.id = e.instance_id WHERE i.name = '`+instance+`'`).Scan(&n))
	return n
}

// checkCutMessage checks that got is original cut to MaxEventMessageBytes at a character
// boundary, with the marker.
func checkCutMessage(t *testing.T, what, got, original string) {
	t.Helper()
	kept, cut := strings.CutSuffix(got, garrison.TruncatedMarker)
	switch {
	case len(got) > garrison.MaxEventMessageBytes:
		t.Fatalf("%s: %d bytes, want at most %d", what, len(got), garrison.MaxEventMessageBytes)
	case !cut || !utf8.ValidString(got):
		t.Fatalf("%s: not valid UTF-8 ending %q", what, garrison.TruncatedMarker)
	case !strings.HasPrefix(original, kept) || len(got) < garrison.MaxEventMessageBytes-utf8.UTFMax:
		t.Fatalf("%s: kept %d bytes that are not the longest fitting start of the message", what, len(kept))
	}
}

package sqlstore

import (
	"fmt"
	"testing"
	"time"
)

func TestParseStoredTime(t *testing.T) {
	want := time.Date(2026, 11, 28, 9, 30, 15, 123456000, time.UTC)
	minute := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Time
	}{
		{"2026-11-28 09:30:15.123456+00:00", want},                                     // the driver's "sqlite" format
		{"2026-11-28 10:30:15.123456+01:00", want},                                     // another zone: read as UTC
		{"2026-11-28 09:30:15.123456Z", want},                                          // a Z suffix
		{"2026-11-28T09:30:15.123456+00:00", want},                                     // RFC 3339 with a zone
		{"2026-11-28 09:30:15.123456", want},                                           // strftime('%Y-%m-%d %H:%M:%f'): UTC
		{"2026-11-28T09:30:15.123456", want},                                           // no zone, T
		{"2026-11-28 09:30", minute},                                                   // minutes
		{"2026-11-28", time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)},                  // a date
		{"2026-11-28 09:30:15.123456 +0000 UTC", want},                                 // time.String
		{"2026-11-28 09:30:15.123456 +0000 UTC m=+12.000000001", want},                 // with its monotonic reading
		{"2026-11-28 09:30:15+00:00", time.Date(2026, 11, 28, 9, 30, 15, 0, time.UTC)}, // no fraction
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseStoredTime(tt.in)
			if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Fatalf("parseStoredTime(%q) = %v, %v; want %v UTC", tt.in, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "yesterday", "2026-13-01 00:00:00+00:00", "1700000000"} {
		if got, err := parseStoredTime(bad); err == nil {
			t.Errorf("parseStoredTime(%q) = %v, want an error", bad, got)
		}
	}
}

func TestNullTimeScan(t *testing.T) {
	want := time.Date(2026, 11, 28, 9, 30, 15, 0, time.UTC)
	for _, src := range []any{"2026-11-28 09:30:15+00:00", []byte("2026-11-28 09:30:15+00:00"), want.In(time.FixedZone("x", 3600))} {
		got := time.Now()
		if err := utc(&got).Scan(src); err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("Scan(%v) = %v, %v; want %v UTC", src, got, err, want)
		}
	}
	got := time.Now()
	if err := utc(&got).Scan(nil); err != nil || !got.IsZero() {
		t.Errorf("Scan(nil) = %v, %v; want the zero time", got, err)
	}
	if err := utc(&got).Scan("not a time"); err == nil {
		t.Error("Scan of unreadable text: no error")
	}
}

func TestExpandTimes(t *testing.T) {
	const q = `SELECT a, @ts(i.created_at), b, @ts(updated_at) FROM t WHERE x = ?`
	for _, tt := range []struct {
		name string
		d    *Dialect
		in   string
		want string
	}{
		{"text times", &Dialect{TextTimes: true}, q,
			`SELECT a, (i.created_at || ''), b, (updated_at || '') FROM t WHERE x = ?`},
		{"columns", &Dialect{}, q, `SELECT a, i.created_at, b, updated_at FROM t WHERE x = ?`},
		{"columns, numbered", &Dialect{NumberedParams: true}, q, `SELECT a, i.created_at, b, updated_at FROM t WHERE x = $1`},
		{"no marker", &Dialect{TextTimes: true}, `SELECT created_at FROM t`, `SELECT created_at FROM t`},
		{"unterminated", &Dialect{TextTimes: true}, `SELECT @ts(a`, `SELECT @ts(a`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the second from memory
				if got := tt.d.sqlText(tt.in); got != tt.want {
					t.Fatalf("sqlText(%q) = %q, want %q", tt.in, got, tt.want)
				}
			}
		})
	}
}

// TestSQLTextMemoryBounded: texts past maxTexts are still rewritten, not remembered.
func TestSQLTextMemoryBounded(t *testing.T) {
	d := &Dialect{NumberedParams: true}
	for i := range maxTexts + 10 {
		if got, want := d.sqlText(fmt.Sprintf("SELECT %d WHERE a = ?", i)), fmt.Sprintf("SELECT %d WHERE a = $1", i); got != want {
			t.Fatalf("sqlText = %q, want %q", got, want)
		}
	}
	if n := len(d.texts); n != maxTexts {
		t.Fatalf("remembered %d texts, want %d", n, maxTexts)
	}
}

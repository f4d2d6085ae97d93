package garrison

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	m := TruncatedMarker
	tests := []struct {
		name  string
		s     string
		limit int
		want  string
	}{
		{"short", "hello", 20, "hello"},
		{"exactly the limit", strings.Repeat("a", 20), 20, strings.Repeat("a", 20)},
		{"one over", strings.Repeat("a", 21), 20, strings.Repeat("a", 20-len(m)) + m},
		// "é" is 2 bytes; a cut inside it backs up to its start.
		{"on a rune boundary", "a" + strings.Repeat("é", 20), 1 + len(m) + 4, "a" + "éé" + m},
		{"inside a rune", "a" + strings.Repeat("é", 20), 1 + len(m) + 3, "a" + "é" + m},
		{"inside a 4-byte rune", strings.Repeat("😀", 10), len(m) + 6, "😀" + m},
		{"limit below the marker", strings.Repeat("a", 40), 3, m},
		{"empty", "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.s, tt.limit)
			if got != tt.want {
				t.Fatalf("Truncate = %q, want %q", got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("Truncate = %q is not valid UTF-8", got)
			}
		})
	}
}

func TestTruncateMessage(t *testing.T) {
	long := strings.Repeat("ü", MaxEventMessageBytes) // 2 bytes each
	got := TruncateMessage(long)
	if len(got) > MaxEventMessageBytes || !strings.HasSuffix(got, TruncatedMarker) ||
		!strings.HasPrefix(long, strings.TrimSuffix(got, TruncatedMarker)) || !utf8.ValidString(got) {
		t.Fatalf("TruncateMessage: %d bytes, suffix %q", len(got), got[max(len(got)-20, 0):])
	}
	if s := strings.Repeat("x", MaxEventMessageBytes); TruncateMessage(s) != s {
		t.Fatal("a message of exactly the limit was changed")
	}
}

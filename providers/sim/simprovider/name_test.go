package simprovider

import (
	"regexp"
	"strings"
	"testing"
)

func TestSafeName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"sim-garrison-abc123", true},
		{"a", true},
		{"0.9_x-Y", true},
		{strings.Repeat("a", maxNameLen), true},
		{strings.Repeat("a", maxNameLen+1), false},
		{"", false},
		{".hidden", false},
		{"-dash", false},
		{"_under", false},
		{"a/b", false},
		{"../x", false},
		{"a b", false},
		{"a\x00", false},
		{"né", false},
	} {
		if got := safeName(tc.name); got != tc.ok {
			t.Errorf("safeName(%q) = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

// FuzzSafeName: safeName accepts exactly what the pattern it replaced matched.
func FuzzSafeName(f *testing.F) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$`)
	for _, s := range []string{"sim-x", "", ".", "a/b", strings.Repeat("z", 202)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := safeName(s), pattern.MatchString(s); got != want {
			t.Fatalf("safeName(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}

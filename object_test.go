package garrison

import (
	"slices"
	"strings"
	"testing"
)

func TestParseObjectTags(t *testing.T) {
	if got := ParseObjectTags("B,a, b ,,A"); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("got %v", got)
	}
	if got := ParseObjectTags(""); got == nil || len(got) != 0 {
		t.Fatalf("empty list: %#v", got)
	}
}

func TestValidateObjectName(t *testing.T) {
	for name, ok := range map[string]bool{
		"tool.tar.gz": true, "with space": true, "ünïcode": true, "": false, ".": false, "..": false,
		"a/b": false, `a\b`: false, "a\nb": false, `a"b`: false, strings.Repeat("x", 256): false, "\xff": false,
	} {
		if err := ValidateObjectName(name); (err == nil) != ok {
			t.Errorf("ValidateObjectName(%q) = %v", name, err)
		}
	}
}

// FuzzObjectNameAndTags checks that accepted names are plain file names and that tags
// come out normalized, whatever a client sends in X-File-Name and X-Tags.
func FuzzObjectNameAndTags(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", "B,a, b ,,A", "\x00", "a\"b", "é,É"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := ValidateObjectName(s); err == nil {
			if strings.ContainsAny(s, "/\\\"\n\r\x00") || s == ".." || s == "." || s == "" {
				t.Fatalf("accepted %q", s)
			}
		} else if CodeOf(err) != EInvalid {
			t.Fatalf("%q: %v", s, err)
		}
		tags := ParseObjectTags(s)
		seen := map[string]bool{}
		for _, tg := range tags {
			if tg == "" || tg != strings.ToLower(strings.TrimSpace(tg)) || seen[tg] || strings.Contains(tg, ",") {
				t.Fatalf("tags of %q: %q", s, tags)
			}
			seen[tg] = true
		}
	})
}

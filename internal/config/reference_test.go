package config

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/config/configref"
)

// TestReferenceExample keeps the example in REFERENCE.md valid: the only
// problems allowed are the files it names not existing on this machine.
func TestReferenceExample(t *testing.T) {
	doc, err := os.ReadFile("REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(doc), "## Full example\n\n```toml\n")
	if !ok {
		t.Fatal("no full example in REFERENCE.md")
	}
	example, _, _ = strings.Cut(example, "```")
	_, err = Parse([]byte(example))
	for _, e := range flatten(err) {
		var fe *FieldError
		if !errors.As(e, &fe) || !(strings.Contains(fe.Problem, "does not exist") || strings.Contains(fe.Problem, "cannot load certificate")) {
			t.Errorf("example problem: %v", e)
		}
	}
}

// TestReferenceDocumentsEveryKey: the key tables of REFERENCE.md name exactly the keys
// the decoder knows, and its table of ignored GARM settings names exactly the settings
// that are ignored with a warning. A new key must be documented (and given an effect:
// see internal/server's TestEveryConfigKeyHasAnEffect).
func TestReferenceDocumentsEveryKey(t *testing.T) {
	doc, err := os.ReadFile("REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := configref.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	var documented, ignored []string
	for _, e := range entries {
		if e.Ignored {
			ignored = append(ignored, e.Key)
		} else {
			documented = append(documented, e.Key)
		}
	}
	var known, warned []string
	leafKeys("", fileType, &known)
	for _, ig := range ignoredKeys {
		warned = append(warned, ig.prefix)
	}
	compareKeys(t, "key", documented, known)
	compareKeys(t, "ignored setting", ignored, warned)
}

// compareKeys reports the keys only one of the lists has.
func compareKeys(t *testing.T, what string, documented, known []string) {
	t.Helper()
	sort.Strings(documented)
	sort.Strings(known)
	for _, k := range known {
		if !slices.Contains(documented, k) {
			t.Errorf("%s %q is not documented in REFERENCE.md", what, k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(known, k) {
			t.Errorf("REFERENCE.md documents %s %q, which the decoder does not know", what, k)
		}
	}
	if c := slices.Compact(slices.Clone(documented)); len(c) != len(documented) {
		t.Errorf("REFERENCE.md documents a %s twice: %q", what, documented)
	}
}

// leafKeys appends the dotted keys of the values (not tables) of struct type t.
func leafKeys(prefix string, t reflect.Type, out *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		key := joinKey(prefix, tomlName(f))
		if sub := tableOf(f.Type); sub.Kind() == reflect.Struct {
			leafKeys(key, sub, out)
			continue
		}
		*out = append(*out, key)
	}
}

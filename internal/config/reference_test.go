package config

import (
	"errors"
	"os"
	"strings"
	"testing"
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

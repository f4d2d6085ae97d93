// Package configref reads the key tables of the configuration reference
// (internal/config/REFERENCE.md), so that tests can hold the code to it: every key the
// decoder knows is documented, and every documented key has an effect or is refused.
package configref

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Entry is one documented setting.
type Entry struct {
	// Key is the dotted TOML key ("apiserver.port", "provider.external.config_file"), or
	// for an ignored GARM setting the table or key it names ("github", "default.config_dir").
	Key string
	// Ignored marks a row of the "GARM settings garrison ignores" table.
	Ignored bool
}

// ignoredHeading is the heading of the table of GARM settings garrison ignores.
const ignoredHeading = "## GARM settings garrison ignores"

var (
	// tableHeading matches a heading naming a table: ## `[apiserver]`, ### `[provider.external]`.
	tableHeading = regexp.MustCompile("^#{2,3} `\\[\\[?([a-z0-9_.]+)\\]?\\]`")
	// code matches the backticked spans of a table cell.
	code = regexp.MustCompile("`([^`]+)`")
	// ignoredSetting matches an ignored setting: [[github]], [database.mysql], [default] config_dir.
	ignoredSetting = regexp.MustCompile(`^\[\[?([a-z0-9_.]+)\]?\]( ([a-z0-9_]+))?$`)
)

// Parse returns the settings documented in the reference's tables, in document order.
func Parse(doc []byte) ([]Entry, error) {
	var (
		out     []Entry
		section string // the table the current heading names, "" for none
		ignored bool   // under ignoredHeading
		fenced  bool   // inside a ``` block
	)
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case fenced:
		case strings.HasPrefix(line, "#"):
			section, ignored = "", line == ignoredHeading
			if m := tableHeading.FindStringSubmatch(line); m != nil {
				section = m[1]
			}
		case strings.HasPrefix(line, "| `") && (section != "" || ignored):
			entries, err := row(line, section, ignored)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			out = append(out, entries...)
		}
	}
	return out, sc.Err()
}

// row returns the settings named by the first cell of a table row.
func row(line, section string, ignored bool) ([]Entry, error) {
	cell, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
	var out []Entry
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		if !ignored {
			out = append(out, Entry{Key: section + "." + m[1]})
			continue
		}
		s := ignoredSetting.FindStringSubmatch(m[1])
		if s == nil {
			return nil, fmt.Errorf("ignored setting %q: want [table], [[table]] or [table] key", m[1])
		}
		key := s[1]
		if s[3] != "" {
			key += "." + s[3]
		}
		out = append(out, Entry{Key: key, Ignored: true})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no key in %q", cell)
	}
	return out, nil
}

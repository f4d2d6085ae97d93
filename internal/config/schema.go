package config

import (
	"errors"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// fileType is the type the document decodes into.
var fileType = reflect.TypeFor[fileConfig]()

// ignoredKeys are GARM settings garrison accepts but does not use, keyed by
// the dotted prefix that identifies them, with the warning to show.
var ignoredKeys = []struct{ prefix, warning string }{
	{"github", "[[github]] sections are ignored: garrison keeps forge credentials in its database (add them with the credentials API or garm-cli)"},
	{"database.mysql", "[database.mysql] is ignored: garrison supports the sqlite3 and postgresql backends"},
	{"default.config_dir", "[default] config_dir is ignored: garrison keeps its files in the data directory"},
	{"provider.lxd", "[provider.lxd] is ignored: garrison runs only external providers (see garm-provider-lxd)"},
}

// checkUndecoded reports every key the decoder did not use: as a warning
// when it belongs to an ignored GARM section (once per section), else as an
// *UnknownKeyError. An unknown table is reported once, not key by key.
func checkUndecoded(keys []toml.Key, errs, warns *problems) {
	undecoded := make(map[string]bool, len(keys))
	for _, k := range keys {
		undecoded[k.String()] = true
	}
	warned := map[string]bool{}
	for _, k := range keys {
		if prefix, warning, ok := ignoredKey(k.String()); ok {
			if !warned[prefix] {
				warned[prefix] = true
				warns.add(errors.New(warning))
			}
			continue
		}
		if insideUnknownTable(k, undecoded) {
			continue
		}
		errs.add(unknownKey(k))
	}
}

// insideUnknownTable reports whether a table enclosing k is itself unknown.
func insideUnknownTable(k toml.Key, undecoded map[string]bool) bool {
	for i := 1; i < len(k); i++ {
		if undecoded[k[:i].String()] {
			return true
		}
	}
	return false
}

// ignoredKey matches a dotted key (array indexes like "[0]" allowed)
// against ignoredKeys.
func ignoredKey(key string) (prefix, warning string, ok bool) {
	s := indexRE.ReplaceAllString(key, "")
	for _, ig := range ignoredKeys {
		if s == ig.prefix || strings.HasPrefix(s, ig.prefix+".") {
			return ig.prefix, ig.warning, true
		}
	}
	return "", "", false
}

// indexRE matches the array indexes checkTypes puts into keys.
var indexRE = regexp.MustCompile(`\[[0-9]+\]`)

// unknownKey builds the error for k with a suggestion from its table.
func unknownKey(k toml.Key) *UnknownKeyError {
	table := k[:len(k)-1]
	return &UnknownKeyError{Key: k.String(), Suggestion: suggest(k[len(k)-1], tableKeys(table))}
}

// tableKeys lists the known keys of the table at path, or nil.
func tableKeys(path []string) []string {
	t := fileType
	for _, name := range path {
		f, ok := fieldByKey(tableOf(t), name)
		if !ok {
			return nil
		}
		t = f.Type
	}
	t = tableOf(t)
	if t.Kind() != reflect.Struct {
		return nil
	}
	return keysOf(t)
}

// tableOf strips pointers and slices to reach a table's struct type.
func tableOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

// fieldByKey finds the struct field decoded from TOML key name.
func fieldByKey(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		if f := t.Field(i); tomlName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// tomlName is the key of a struct field.
func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

// suggest returns the candidate closest to word if it is close enough.
func suggest(word string, candidates []string) string {
	best, bestDist := "", 3 // accept at most two edits
	if len(word) <= 3 {
		bestDist = 2
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	for _, c := range sorted {
		if d := editDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // not worth computing for a suggestion
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

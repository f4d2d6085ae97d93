package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"time"
)

// checkTypes walks a generically decoded value v found at key against the
// Go type t it should decode into, recording a *FieldError for every value
// of the wrong type and an *UnknownKeyError for every unknown key.
func checkTypes(p *problems, key string, v any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		checkTable(p, key, v, t)
	case reflect.Slice:
		checkArray(p, key, v, t)
	default:
		if want := tomlTypeName(t); want != valueTypeName(v) {
			p.field(key, "expected %s, got %s", want, valueTypeName(v))
		}
	}
}

// checkTable checks a table's keys in sorted order.
func checkTable(p *problems, key string, v any, t reflect.Type) {
	m, ok := v.(map[string]any)
	if !ok {
		p.field(key, "expected a table, got %s", valueTypeName(v))
		return
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sub := joinKey(key, name)
		f, ok := fieldByKey(t, name)
		if !ok {
			if _, _, ignored := ignoredKey(sub); !ignored {
				p.add(&UnknownKeyError{Key: sub, Suggestion: suggest(name, keysOf(t))})
			}
			continue
		}
		checkTypes(p, sub, m[name], f.Type)
	}
}

// checkArray checks an array of strings or an array of tables.
func checkArray(p *problems, key string, v any, t reflect.Type) {
	elem := tableOf(t.Elem())
	if elem.Kind() == reflect.Struct {
		tables, ok := v.([]map[string]any)
		if !ok {
			p.field(key, "expected an array of tables ([[%s]]), got %s", key, valueTypeName(v))
			return
		}
		for i, tb := range tables {
			checkTable(p, key+"["+strconv.Itoa(i)+"]", tb, elem)
		}
		return
	}
	items, ok := v.([]any)
	if !ok {
		p.field(key, "expected an array of %ss, got %s", tomlTypeName(elem), valueTypeName(v))
		return
	}
	for i, item := range items {
		if got := valueTypeName(item); got != tomlTypeName(elem) {
			p.field(key, "item %d: expected %s, got %s", i, tomlTypeName(elem), got)
		}
	}
}

// tomlTypeName names the TOML type a scalar Go type decodes from.
func tomlTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64:
		return "integer"
	default:
		return t.String()
	}
}

// valueTypeName names the TOML type of a generically decoded value.
func valueTypeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "float"
	case time.Time:
		return "datetime"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	case []map[string]any:
		return "array of tables"
	default:
		return fmt.Sprintf("%T", v) // local dates and times
	}
}

// keysOf lists the TOML keys of struct type t.
func keysOf(t reflect.Type) []string {
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		keys = append(keys, tomlName(t.Field(i)))
	}
	return keys
}

// joinKey appends name to a dotted key.
func joinKey(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

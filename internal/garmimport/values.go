package garmimport

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// row is one database row, column → driver value. The accessors convert the values both
// databases return (SQLite: int64 for booleans, text or time.Time for datetimes;
// PostgreSQL: bool, time.Time, string for uuid and JSON) and read a missing or NULL
// column as the zero value.
type row map[string]any

func (r row) null(col string) bool { return r[col] == nil }

func (r row) str(col string) string {
	switch v := r[col].(type) {
	case nil:
		return ""
	case string:
		return v
	case []byte:
		return string(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case [16]byte: // a uuid some drivers return as bytes
		return fmt.Sprintf("%x-%x-%x-%x-%x", v[0:4], v[4:6], v[6:8], v[8:10], v[10:16])
	default:
		return fmt.Sprint(v)
	}
}

func (r row) int(col string) int64 {
	switch v := r[col].(type) {
	case int64:
		return v
	case int32:
		return int64(v)
	case float64:
		return int64(v)
	case bool:
		if v {
			return 1
		}
		return 0
	case string, []byte:
		n, _ := strconv.ParseInt(strings.TrimSpace(r.str(col)), 10, 64)
		return n
	}
	return 0
}

func (r row) uint(col string) uint {
	if n := r.int(col); n > 0 {
		return uint(n)
	}
	return 0
}

func (r row) bool(col string) bool {
	switch v := r[col].(type) {
	case bool:
		return v
	case string, []byte:
		b, _ := strconv.ParseBool(strings.TrimSpace(r.str(col)))
		return b
	}
	return r.int(col) != 0
}

func (r row) bytes(col string) []byte {
	switch v := r[col].(type) {
	case nil:
		return nil
	case []byte:
		return append([]byte(nil), v...)
	case string:
		return []byte(v)
	}
	return []byte(r.str(col))
}

// sqliteTimeLayouts are the forms GARM's SQLite datetimes take (GORM writes Go's
// "2006-01-02 15:04:05.999999999-07:00"), and SQLite's own.
var sqliteTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

// time reads a timestamp; NULL, unparsable values, Go's zero time and the Unix epoch
// (GARM's two forms of "unset") read as the zero time.
func (r row) time(col string) time.Time {
	var t time.Time
	switch v := r[col].(type) {
	case time.Time:
		t = v
	case string, []byte:
		s := strings.TrimSpace(r.str(col))
		for _, layout := range sqliteTimeLayouts {
			if p, err := time.Parse(layout, s); err == nil {
				t = p
				break
			}
		}
	}
	if t.IsZero() || t.Unix() <= 0 {
		return time.Time{}
	}
	return t.UTC()
}

// json reads a JSON column verbatim; NULL, empty and the JSON null read as nil.
func (r row) json(col string) json.RawMessage {
	var b []byte
	switch v := r[col].(type) {
	case nil:
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default: // a driver that decoded it
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil
		}
	}
	s := strings.TrimSpace(string(b))
	if s == "" || s == "null" {
		return nil
	}
	return json.RawMessage(s)
}

// strs reads a JSON array of strings; anything else reads as nil.
func (r row) strs(col string) []string {
	var out []string
	if raw := r.json(col); raw != nil {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}

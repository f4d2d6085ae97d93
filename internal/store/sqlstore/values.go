package sqlstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// precision is the resolution timestamps are stored with (PostgreSQL's).
const precision = time.Microsecond

// now is the current time as the store keeps it: UTC, truncated to the stored precision,
// so a value read back equals the one written.
func now() time.Time { return time.Now().UTC().Truncate(precision) }

// timeArg converts t for storage: NULL for the zero time, UTC at stored precision otherwise.
func timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(precision)
}

// nullTime scans a nullable timestamp into a UTC time.Time (zero for NULL).
type nullTime struct{ t *time.Time }

func (n nullTime) Scan(src any) error {
	switch v := src.(type) {
	case string: // a column read as text (Dialect.TextTimes)
		return n.parse(v)
	case []byte:
		return n.parse(string(v))
	}
	var nt sql.NullTime
	if err := nt.Scan(src); err != nil {
		return err
	}
	*n.t = time.Time{}
	if nt.Valid {
		*n.t = nt.Time.UTC()
	}
	return nil
}

func (n nullTime) parse(s string) error {
	t, err := parseStoredTime(s)
	if err != nil {
		return err
	}
	*n.t = t
	return nil
}

// storedTimeLayout is how the SQLite driver writes a time.Time (its "sqlite" format).
const storedTimeLayout = "2006-01-02 15:04:05.999999999-07:00"

// storedTimeLayouts are the other layouts a timestamp column may hold: those the SQLite
// driver reads, Go's time.String (the driver's default format), and SQLite's own
// strftime('%Y-%m-%d %H:%M:%f') (no zone: UTC).
var storedTimeLayouts = []string{
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01-02 15:04:05.999999999 -0700 MST",
}

// parseStoredTime parses a timestamp column's text as UTC: the store's own layout at
// once, the others after it.
func parseStoredTime(s string) (time.Time, error) {
	if t, err := time.Parse(storedTimeLayout, s); err == nil {
		return t.UTC(), nil
	}
	v, _, _ := strings.Cut(s, " m=") // time.String's monotonic clock reading
	v = strings.TrimSuffix(strings.TrimSpace(v), "Z")
	for _, l := range storedTimeLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("sqlstore: unreadable timestamp %q", s)
}

// utc scans a non-null timestamp into a UTC time.Time.
func utc(t *time.Time) nullTime { return nullTime{t: t} }

// jsonArg encodes v as JSON text for a TEXT column.
func jsonArg(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("sqlstore: encode: %w", err)
	}
	return string(b), nil
}

// jsonCol scans a JSON TEXT column into a value.
type jsonCol struct{ v any }

func (j jsonCol) Scan(src any) error {
	var b []byte
	switch s := src.(type) {
	case nil:
		return nil
	case string:
		b = []byte(s)
	case []byte:
		b = s
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as JSON", src)
	}
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, j.v); err != nil {
		return fmt.Errorf("sqlstore: decode: %w", err)
	}
	return nil
}

// rawJSON scans a nullable TEXT column holding JSON kept verbatim.
type rawJSON struct{ v *json.RawMessage }

func (r rawJSON) Scan(src any) error {
	switch s := src.(type) {
	case nil:
		*r.v = nil
	case string:
		*r.v = json.RawMessage(s)
	case []byte:
		*r.v = append(json.RawMessage(nil), s...)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as JSON", src)
	}
	return nil
}

// rawJSONArg stores verbatim JSON, NULL when unset.
func rawJSONArg(m json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return string(m)
}

// bytesArg stores a byte slice, NULL when empty.
func bytesArg(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// newID returns a new random UUID string.
func newID() string { return uuid.NewString() }

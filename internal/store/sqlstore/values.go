package sqlstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
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

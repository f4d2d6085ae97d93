package sqlstore

import (
	"strconv"
	"strings"
	"sync"
)

// Dialect is what differs between the SQL databases the store runs on. Queries in this
// package are written with ? placeholders and portable SQL; the dialect fills the gaps.
type Dialect struct {
	// Name names the database in error messages ("sqlite", "postgres").
	Name string
	// NumberedParams rewrites ? placeholders to $1, $2, ... (PostgreSQL).
	NumberedParams bool
	// ForUpdate is appended to the row read of a read-modify-write transaction to lock
	// the row (" FOR UPDATE"), or "" where a write transaction already excludes others.
	ForUpdate string
	// ForShare is appended to a read that must keep the row from being locked for update
	// until the transaction ends while letting other readers do the same (" FOR KEY
	// SHARE"): a fence check holds its claim's row so that no takeover (which reads the
	// row FOR UPDATE before it changes the token) commits between check and write. ""
	// where a write transaction already excludes others.
	ForShare string
	// Lock is a statement taking one int64 argument that takes a lock held until the
	// transaction ends (a PostgreSQL advisory lock), or "" where write transactions are
	// serialized already (SQLite with BEGIN IMMEDIATE).
	Lock string
	// IsUniqueViolation reports whether err is a unique-constraint violation.
	IsUniqueViolation func(err error) bool
	// IsForeignKeyViolation reports whether err is a foreign-key violation.
	IsForeignKeyViolation func(err error) bool
	// IsRetryable reports whether a transaction failed for a transient reason (deadlock,
	// serialization failure) and may be retried from the start. May be nil.
	IsRetryable func(err error) bool
	// SyncSequence is a statement, formatted with a table and its id column, that moves
	// the column's sequence past the largest id after rows were inserted with explicit
	// ids (PostgreSQL identity columns); "" where the database does it itself (SQLite
	// AUTOINCREMENT).
	SyncSequence string
	// PrepareStatements keeps each query prepared per connection and reuses it, for a
	// driver that otherwise parses the SQL at every call (SQLite). Queries must be
	// single statements with a fixed text (the store's are).
	PrepareStatements bool
	// TextTimes reads the timestamp columns a query marks @ts(column) as their stored
	// text, which the store parses itself (parseStoredTime), instead of letting the driver
	// parse them: modernc.org/sqlite tries Go's time.String layout first for every value
	// of a DATETIME column, and that failing attempt allocates an error each time (a fifth
	// of the allocations of an instance list). Without it, @ts(column) is the column.
	TextTimes bool

	textMu sync.RWMutex
	texts  map[string]string // query text as written -> as run (sqlText); at most maxTexts
}

// maxTexts bounds the memory of query texts as run. The store's texts are fixed or come
// from a few filter combinations, so the bound is only a safety net.
const maxTexts = 1024

// sqlText returns query as the dialect runs it (timestamps marked @ts, placeholders),
// from memory after the first time.
func (d *Dialect) sqlText(query string) string {
	d.textMu.RLock()
	out, ok := d.texts[query]
	d.textMu.RUnlock()
	if ok {
		return out
	}
	out = d.rebind(d.expandTimes(query))
	d.textMu.Lock()
	defer d.textMu.Unlock()
	if d.texts == nil {
		d.texts = map[string]string{}
	}
	if len(d.texts) < maxTexts {
		d.texts[query] = out
	}
	return out
}

// tsMarker opens a marked timestamp column: @ts(i.created_at).
const tsMarker = "@ts("

// expandTimes replaces each @ts(column) of query: by an expression of the column's text
// with TextTimes (SQLite: an expression has no declared type, so the driver hands Scan
// the stored text), else by the column.
func (d *Dialect) expandTimes(query string) string {
	if !strings.Contains(query, tsMarker) {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 64)
	for {
		i := strings.Index(query, tsMarker)
		if i < 0 {
			b.WriteString(query)
			return b.String()
		}
		b.WriteString(query[:i])
		rest := query[i+len(tsMarker):]
		j := strings.IndexByte(rest, ')')
		if j < 0 { // not a marker after all: leave it for the database to refuse
			b.WriteString(query[i:])
			return b.String()
		}
		col := rest[:j]
		if d.TextTimes {
			b.WriteString("(" + col + " || '')")
		} else {
			b.WriteString(col)
		}
		query = rest[j+1:]
	}
}

// Lock keys for Dialect.Lock.
const (
	lockMigrate int64 = 0x6761727269736f6e // "garrison"
	lockAdmin   int64 = lockMigrate + 1
)

// rebind rewrites the ? placeholders of query for the dialect. Queries in this package
// never contain a literal question mark.
func (d *Dialect) rebind(query string) string {
	if !d.NumberedParams || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for _, r := range query {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

func (d *Dialect) unique(err error) bool {
	return err != nil && d.IsUniqueViolation != nil && d.IsUniqueViolation(err)
}

func (d *Dialect) foreignKey(err error) bool {
	return err != nil && d.IsForeignKeyViolation != nil && d.IsForeignKeyViolation(err)
}

func (d *Dialect) retryable(err error) bool {
	return err != nil && d.IsRetryable != nil && d.IsRetryable(err)
}

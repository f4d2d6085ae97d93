// Package sqlstore implements store.Store over database/sql. The sqlite and postgres
// packages open their driver, supply a Dialect and their embedded migrations, and embed
// *Store; everything else is shared here.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
)

// Config is what a backend hands to New.
type Config struct {
	Dialect *Dialect
	// Write runs every transaction. SQLite gives it a single connection.
	Write *sql.DB
	// Read serves reads outside transactions; nil means Write.
	Read *sql.DB
	// Migrations holds the schema as NNNN_name.sql files, applied in order.
	Migrations fs.FS
	// NewSealer makes the Sealer from the database's salt.
	NewSealer store.NewSealer
	// SingleWriter says the database takes one write transaction at a time (SQLite):
	// the store then orders its writers itself, urgent ones (store.Urgent) first.
	SingleWriter bool
	// StatementLog, when set, gets a debug record for every statement the store runs
	// (its text, argument count, duration and error; never the argument values, which
	// hold sealed secrets and password hashes). nil: no statement log.
	StatementLog *slog.Logger
	// WriteWait, when set with SingleWriter, is told how long each write transaction
	// waited for its turn to write, and whether it was urgent (store.Urgent): whether a
	// webhook delivery waits on the reconciler's writes shows there.
	WriteWait func(urgent bool, waited time.Duration)
}

// Store implements store.Store on a SQL database.
type Store struct {
	d      *Dialect
	wdb    *sql.DB
	rdb    *sql.DB
	sealer store.Sealer
	salt   []byte
	stmts  *stmtCache   // nil unless Dialect.PrepareStatements
	log    *slog.Logger // statement log; nil: none
	gate   *writeGate   // orders the writers of a single-writer database; nil: none
	// writeWait is Config.WriteWait; nil: not observed.
	writeWait func(urgent bool, waited time.Duration)
	// refusals counts the writes refused by their fence (checkFence), takeovers the
	// claims taken over from an expired holder, by claim kind.
	refusals, takeovers counters
}

var _ store.Store = (*Store)(nil)

// New migrates the database, sets up sealing and returns the store. The caller keeps
// ownership of the *sql.DB handles until New succeeds; after that Close closes them.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Dialect == nil || cfg.Write == nil || cfg.Migrations == nil || cfg.NewSealer == nil {
		return nil, errors.New("sqlstore: incomplete config")
	}
	s := &Store{d: cfg.Dialect, wdb: cfg.Write, rdb: cfg.Read, log: cfg.StatementLog, writeWait: cfg.WriteWait}
	if cfg.SingleWriter {
		s.gate = &writeGate{}
	}
	if s.rdb == nil {
		s.rdb = s.wdb
	}
	if err := s.migrate(ctx, cfg.Migrations); err != nil {
		return nil, err
	}
	if err := s.initSealer(ctx, cfg.NewSealer); err != nil {
		return nil, err
	}
	if s.d.PrepareStatements {
		s.stmts = newStmtCache() // after the migrations, whose scripts are not cached
	}
	return s, nil
}

// Ping checks the database is reachable.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.wdb.PingContext(ctx); err != nil {
		return fmt.Errorf("%s: ping: %w", s.d.Name, err)
	}
	return nil
}

// Close closes the database handles.
func (s *Store) Close() error {
	var err error
	if s.rdb != s.wdb {
		err = s.rdb.Close()
	}
	err = errors.Join(err, s.wdb.Close())
	s.stmts.close()
	return err
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// conn runs queries written with ? placeholders in the store's dialect.
type conn struct {
	q   querier
	d   *Dialect
	db  *sql.DB      // the handle q belongs to
	tx  *sql.Tx      // q when in a transaction
	st  *stmtCache   // nil: run every query unprepared
	log *slog.Logger // statement log; nil: none
}

// prepared returns the cached statement of query for this conn, or nil.
func (c conn) prepared(ctx context.Context, query string) *sql.Stmt {
	st := c.st.get(c.db, query)
	if st != nil && c.tx != nil {
		st = c.tx.StmtContext(ctx, st) // closed with the transaction
	}
	return st
}

func (c conn) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	query = c.d.sqlText(query)
	start := c.logStart()
	var res sql.Result
	var err error
	if st := c.prepared(ctx, query); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = c.q.ExecContext(ctx, query, args...)
	}
	c.logStatement(ctx, query, len(args), start, err)
	return res, err
}

func (c conn) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	query = c.d.sqlText(query)
	start := c.logStart()
	var rows *sql.Rows
	var err error
	if st := c.prepared(ctx, query); st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = c.q.QueryContext(ctx, query, args...)
	}
	c.logStatement(ctx, query, len(args), start, err)
	return rows, err
}

func (c conn) row(ctx context.Context, query string, args ...any) *sql.Row {
	query = c.d.sqlText(query)
	start := c.logStart()
	var row *sql.Row
	if st := c.prepared(ctx, query); st != nil {
		row = st.QueryRowContext(ctx, args...)
	} else {
		row = c.q.QueryRowContext(ctx, query, args...)
	}
	c.logStatement(ctx, query, len(args), start, row.Err())
	return row
}

// logStart returns the start time of a statement to log, or the zero time without a
// statement log (sparing the clock read).
func (c conn) logStart() time.Time {
	if c.log == nil {
		return time.Time{}
	}
	return time.Now()
}

// logStatement writes a statement's debug record to the statement log, if there is one.
func (c conn) logStatement(ctx context.Context, query string, nargs int, start time.Time, err error) {
	if c.log == nil || !c.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{slog.String("sql", query), slog.Int("args", nargs), slog.Duration("duration", time.Since(start))}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		attrs = append(attrs, slog.Any("err", err))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "sql statement", attrs...)
}

// forUpdate appends the dialect's row-locking clause to a select; of names the table
// aliases whose rows to lock when the select joins several.
func (c conn) forUpdate(query string, of ...string) string {
	if c.d.ForUpdate == "" {
		return query
	}
	query += c.d.ForUpdate
	if len(of) > 0 {
		query += " OF " + strings.Join(of, ", ")
	}
	return query
}

// lock takes the dialect's transaction-scoped lock with the given key, if it has one.
func (c conn) lock(ctx context.Context, key int64) error {
	if c.d.Lock == "" {
		return nil
	}
	if _, err := c.exec(ctx, c.d.Lock, key); err != nil {
		return fmt.Errorf("%s: lock: %w", c.d.Name, err)
	}
	return nil
}

// maxAttempts bounds the retries of a transaction that failed for a transient reason.
const maxAttempts = 5

// write runs fn in a write transaction, committing when fn returns nil. Errors from fn are
// returned unchanged; transient failures are retried from the start. A write whose ctx
// carries a store.Fence is refused with garrison.ErrFenced when the fence is stale (see
// checkFence), in the same transaction.
func (s *Store) write(ctx context.Context, fn func(c conn) error) error {
	var err error
	for range maxAttempts {
		err = s.writeOnce(ctx, fn)
		if !s.d.retryable(err) {
			return err
		}
	}
	return err
}

func (s *Store) writeOnce(ctx context.Context, fn func(c conn) error) error {
	if s.gate != nil {
		waited, err := s.gate.enterTimed(ctx)
		if err != nil {
			return fmt.Errorf("%s: wait to write: %w", s.d.Name, err)
		}
		defer s.gate.leave(ctx)
		if s.writeWait != nil {
			s.writeWait(store.IsUrgent(ctx), waited)
		}
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", s.d.Name, err)
	}
	c := conn{q: tx, d: s.d, db: s.wdb, tx: tx, st: s.stmts, log: s.log}
	if err := s.checkFence(ctx, c); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := fn(c); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", s.d.Name, err)
	}
	return nil
}

// read runs fn in a transaction on the read handle so that its queries see one snapshot.
func (s *Store) read(ctx context.Context, fn func(c conn) error) error {
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", s.d.Name, err)
	}
	defer func() { _ = tx.Rollback() }()
	return fn(conn{q: tx, d: s.d, db: s.rdb, tx: tx, st: s.stmts, log: s.log})
}

// reader runs single queries on the read handle, outside any transaction.
func (s *Store) reader() conn { return conn{q: s.rdb, d: s.d, db: s.rdb, st: s.stmts, log: s.log} }

// Package postgres is garrison's scale-out storage backend: PostgreSQL through pgx. Several
// garrison replicas may share one database: update callbacks run with the row locked
// (SELECT ... FOR UPDATE) and migrations take an advisory lock.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a store.Store kept in a PostgreSQL database.
type Store struct {
	*sqlstore.Store
	db   *sql.DB // the pool, owned by Store
	opts Options
}

var _ store.Store = (*Store)(nil)

// SQLSTATE codes the store tells apart.
const (
	uniqueViolation      = "23505"
	foreignKeyViolation  = "23503"
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
)

var dialect = &sqlstore.Dialect{
	Name:                  "postgres",
	NumberedParams:        true,
	ForUpdate:             " FOR UPDATE",
	ForShare:              " FOR KEY SHARE",
	Lock:                  "SELECT pg_advisory_xact_lock(?)",
	IsUniqueViolation:     hasCode(uniqueViolation),
	IsForeignKeyViolation: hasCode(foreignKeyViolation),
	IsRetryable:           hasCode(serializationFailure, deadlockDetected),
	SyncSequence: `SELECT setval(pg_get_serial_sequence('%[1]s', '%[2]s'),
		(SELECT COALESCE(MAX(%[2]s), 0) + 1 FROM %[1]s), false)`,
}

// hasCode reports whether an error is a PostgreSQL error with one of the SQLSTATE codes.
func hasCode(codes ...string) func(error) bool {
	return func(err error) bool {
		var e *pgconn.PgError
		if !errors.As(err, &e) {
			return false
		}
		for _, c := range codes {
			if e.Code == c {
				return true
			}
		}
		return false
	}
}

// MaxConns caps the connections a store opened by Open keeps.
const MaxConns = 16

// Options tune the connection pool of a store opened by OpenWith, and its statement log.
type Options struct {
	// MaxOpenConns caps the connections open at once (>= 1).
	MaxOpenConns int
	// MaxIdleConns caps the idle connections kept for reuse (0: none kept).
	MaxIdleConns int
	// ConnMaxLifetime closes a connection this long after it was opened (0: never).
	ConnMaxLifetime time.Duration
	// ConnMaxIdleTime closes a connection idle this long (0: never).
	ConnMaxIdleTime time.Duration
	// StatementLog, when set, gets a debug record for every statement (see
	// sqlstore.Config.StatementLog).
	StatementLog *slog.Logger
}

// Open connects to the database named by dsn (a postgres:// URL or key=value string; a
// search_path parameter selects the schema), migrates it and sets up sealing with a
// Sealer from newSealer. It fails with store.ErrWrongPassphrase if the database's secrets
// were sealed with another key, and with store.ErrSchemaTooNew if a newer garrison
// migrated it. It keeps at most MaxConns connections.
func Open(ctx context.Context, dsn string, newSealer store.NewSealer) (*Store, error) {
	return OpenWith(ctx, dsn, newSealer, Options{MaxOpenConns: MaxConns, MaxIdleConns: MaxConns / 2})
}

// OpenWith is Open with the connection pool tuned by o.
func OpenWith(ctx context.Context, dsn string, newSealer store.NewSealer, o Options) (*Store, error) {
	return open(ctx, dsn, newSealer, o, sub(migrations))
}

// open is OpenWith with the migrations to apply.
func open(ctx context.Context, dsn string, newSealer store.NewSealer, o Options, fsys fs.FS) (*Store, error) {
	if o.MaxOpenConns < 1 {
		return nil, fmt.Errorf("postgres: MaxOpenConns must be at least 1, got %d", o.MaxOpenConns)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(o.MaxOpenConns)
	db.SetMaxIdleConns(o.MaxIdleConns)
	db.SetConnMaxLifetime(o.ConnMaxLifetime)
	db.SetConnMaxIdleTime(o.ConnMaxIdleTime)
	s, err := sqlstore.New(ctx, sqlstore.Config{
		Dialect: dialect, Write: db, Migrations: fsys, NewSealer: newSealer,
		StatementLog: o.StatementLog,
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("postgres: open %s@%s/%s: %w", cfg.User, cfg.Host, cfg.Database, err)
	}
	return &Store{Store: s, db: db, opts: o}, nil
}

// Options returns the options the store was opened with.
func (s *Store) Options() Options { return s.opts }

// PoolStats returns the statistics of the store's connection pool.
func (s *Store) PoolStats() sql.DBStats { return s.db.Stats() }

func sub(fsys embed.FS) fs.FS {
	f, err := fs.Sub(fsys, "migrations")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	return f
}

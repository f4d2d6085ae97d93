// Package postgres is garrison's scale-out storage backend: PostgreSQL through pgx. Several
// garrison replicas may share one database: update callbacks run with the row locked
// (SELECT ... FOR UPDATE) and migrations take an advisory lock.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"

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
	Lock:                  "SELECT pg_advisory_xact_lock(?)",
	IsUniqueViolation:     hasCode(uniqueViolation),
	IsForeignKeyViolation: hasCode(foreignKeyViolation),
	IsRetryable:           hasCode(serializationFailure, deadlockDetected),
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

// MaxConns caps the connections a store opens.
const MaxConns = 16

// Open connects to the database named by dsn (a postgres:// URL or key=value string; a
// search_path parameter selects the schema), migrates it and sets up sealing with a
// Sealer from newSealer. It fails with store.ErrWrongPassphrase if the database's secrets
// were sealed with another key, and with store.ErrSchemaTooNew if a newer garrison
// migrated it.
func Open(ctx context.Context, dsn string, newSealer store.NewSealer) (*Store, error) {
	return open(ctx, dsn, newSealer, sub(migrations))
}

// open is Open with the migrations to apply.
func open(ctx context.Context, dsn string, newSealer store.NewSealer, fsys fs.FS) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(MaxConns)
	db.SetMaxIdleConns(MaxConns / 2)
	s, err := sqlstore.New(ctx, sqlstore.Config{
		Dialect: dialect, Write: db, Migrations: fsys, NewSealer: newSealer,
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("postgres: open %s@%s/%s: %w", cfg.User, cfg.Host, cfg.Database, err)
	}
	return &Store{Store: s}, nil
}

func sub(fsys embed.FS) fs.FS {
	f, err := fs.Sub(fsys, "migrations")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	return f
}

package server

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/seal"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
)

// OpenStore opens the configured backend without a statement log (a command's short
// use of the server's database).
func OpenStore(ctx context.Context, db config.Database) (store.Store, error) {
	return openServerStore(ctx, db, nil, nil)
}

// openServerStore opens the configured backend, sealing secrets with a key derived from
// the database passphrase, with the [database] settings: the SQLite busy timeout, the
// PostgreSQL pool, and with debug every statement logged to logger. SQLite tells
// writeWait, when set, how long each write waited for its single writer.
func openServerStore(ctx context.Context, db config.Database, logger *slog.Logger,
	writeWait func(urgent bool, waited time.Duration)) (store.Store, error) {
	newSealer := func(salt []byte) (store.Sealer, error) {
		return seal.New(db.Passphrase, salt)
	}
	var sqlLog *slog.Logger
	if db.Debug && logger != nil {
		sqlLog = logger.With("backend", string(db.Backend))
	}
	switch db.Backend {
	case config.BackendPostgres:
		p := db.Postgres
		s, err := postgres.OpenWith(ctx, p.DSN, newSealer, postgres.Options{
			MaxOpenConns:    p.MaxOpenConns,
			MaxIdleConns:    p.MaxIdleConns,
			ConnMaxLifetime: p.ConnMaxLifetime,
			ConnMaxIdleTime: p.ConnMaxIdleTime,
			StatementLog:    sqlLog,
		})
		if err != nil {
			return nil, fmt.Errorf("opening PostgreSQL: %w", err)
		}
		return s, nil
	default:
		s, err := sqlite.OpenWith(ctx, db.SQLite.DBFile, newSealer, sqlite.Options{
			BusyTimeout:  db.SQLite.BusyTimeout,
			StatementLog: sqlLog,
			WriteWait:    writeWait,
		})
		if err != nil {
			return nil, fmt.Errorf("opening SQLite database %s: %w", db.SQLite.DBFile, err)
		}
		return s, nil
	}
}

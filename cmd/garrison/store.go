package main

import (
	"context"
	"fmt"

	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/seal"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
)

// openStore opens the configured backend, sealing secrets with a key derived from the
// database passphrase.
func openStore(ctx context.Context, db config.Database) (store.Store, error) {
	newSealer := func(salt []byte) (store.Sealer, error) {
		return seal.New(db.Passphrase, salt)
	}
	switch db.Backend {
	case config.BackendPostgres:
		s, err := postgres.Open(ctx, db.Postgres.DSN, newSealer)
		if err != nil {
			return nil, fmt.Errorf("opening PostgreSQL: %w", err)
		}
		return s, nil
	default:
		s, err := sqlite.Open(ctx, db.SQLite.DBFile, newSealer)
		if err != nil {
			return nil, fmt.Errorf("opening SQLite database %s: %w", db.SQLite.DBFile, err)
		}
		return s, nil
	}
}

package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison/internal/store"
)

// migration is one NNNN_name.sql file.
type migration struct {
	version int64
	name    string
	sql     string
}

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    BIGINT PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TIMESTAMP NOT NULL
)`

// migrate applies the migrations the database lacks, each in its own transaction.
func (s *Store) migrate(ctx context.Context, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	err = s.write(ctx, func(c conn) error {
		if err := c.lock(ctx, lockMigrate); err != nil {
			return err
		}
		_, err := c.exec(ctx, createMigrationsTable)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: create schema_migrations: %w", s.d.Name, err)
	}
	for _, m := range ms {
		if err := s.apply(ctx, m, ms[len(ms)-1].version); err != nil {
			return err
		}
	}
	return nil
}

// apply runs one migration unless it was applied already. It first refuses a database
// whose schema is newer than latest.
func (s *Store) apply(ctx context.Context, m migration, latest int64) error {
	return s.write(ctx, func(c conn) error {
		if err := c.lock(ctx, lockMigrate); err != nil {
			return err
		}
		var have int64
		if err := c.row(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
			return fmt.Errorf("%s: read schema version: %w", s.d.Name, err)
		}
		if have > latest {
			return fmt.Errorf("%w (database at version %d, this build knows up to %d)",
				store.ErrSchemaTooNew, have, latest)
		}
		var n int
		if err := c.row(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
			return fmt.Errorf("%s: read schema_migrations: %w", s.d.Name, err)
		}
		if n > 0 {
			return nil
		}
		if _, err := c.q.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("%s: migration %d %s: %w", s.d.Name, m.version, m.name, err)
		}
		_, err := c.exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, now())
		if err != nil {
			return fmt.Errorf("%s: record migration %d: %w", s.d.Name, m.version, err)
		}
		return nil
	})
}

// loadMigrations reads and orders the *.sql files at the root of fsys.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list migrations: %w", err)
	}
	ms := make([]migration, 0, len(names))
	seen := map[int64]string{}
	for _, name := range names {
		m, err := readMigration(fsys, name)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[m.version]; dup {
			return nil, fmt.Errorf("sqlstore: migrations %s and %s share version %d", prev, name, m.version)
		}
		seen[m.version] = name
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, errors.New("sqlstore: no migrations")
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

func readMigration(fsys fs.FS, name string) (migration, error) {
	base := strings.TrimSuffix(path.Base(name), ".sql")
	num, label, ok := strings.Cut(base, "_")
	v, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || v <= 0 {
		return migration{}, fmt.Errorf("sqlstore: migration %s: want NNNN_name.sql", name)
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return migration{}, fmt.Errorf("sqlstore: read migration %s: %w", name, err)
	}
	return migration{version: v, name: label, sql: string(b)}, nil
}

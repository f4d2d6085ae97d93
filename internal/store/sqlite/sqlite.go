// Package sqlite is garrison's embedded storage backend: SQLite through a pure-Go driver
// (no cgo), in WAL mode with foreign keys on. Writes go through one connection, reads
// through a small pool.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a store.Store kept in one SQLite file.
type Store struct {
	*sqlstore.Store
	path string
}

var _ store.Store = (*Store)(nil)

// dialect is SQLite's: write transactions begin IMMEDIATE, so they exclude each other
// and need no row locks.
var dialect = &sqlstore.Dialect{
	Name:                  "sqlite",
	PrepareStatements:     true,
	IsUniqueViolation:     hasCode(sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY),
	IsForeignKeyViolation: hasCode(sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY),
}

// hasCode reports whether an error is a SQLite error with one of the extended codes.
func hasCode(codes ...int) func(error) bool {
	return func(err error) bool {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		for _, c := range codes {
			if e.Code() == c {
				return true
			}
		}
		return false
	}
}

// Open opens (creating if needed) the database at path, migrates it and sets up sealing
// with a Sealer from newSealer. It fails with store.ErrWrongPassphrase if the database's
// secrets were sealed with another key, and with store.ErrSchemaTooNew if a newer
// garrison migrated it.
func Open(ctx context.Context, path string, newSealer store.NewSealer) (*Store, error) {
	return open(ctx, path, newSealer, sub(migrations))
}

// open is Open with the migrations to apply.
func open(ctx context.Context, path string, newSealer store.NewSealer, fsys fs.FS) (*Store, error) {
	w, err := openDB(path, true)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	r, err := openDB(path, false)
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(max(2, runtime.GOMAXPROCS(0)))
	s, err := sqlstore.New(ctx, sqlstore.Config{
		Dialect: dialect, Write: w, Read: r, Migrations: fsys, NewSealer: newSealer,
	})
	if err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return &Store{Store: s, path: path}, nil
}

// Path returns the database file the store was opened on.
func (s *Store) Path() string { return s.path }

// openDB opens a handle on the database file. The writer's transactions begin IMMEDIATE
// so read-modify-write cannot deadlock on lock upgrades.
func openDB(path string, writer bool) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if writer {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	q.Set("_time_format", "sqlite")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

func sub(fsys embed.FS) fs.FS {
	f, err := fs.Sub(fsys, "migrations")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	return f
}

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
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"time"

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
	opts Options
	w, r *sql.DB // the write and read handles, owned by Store
}

var _ store.Store = (*Store)(nil)

// dialect is SQLite's: write transactions begin IMMEDIATE, so they exclude each other
// and need no row locks.
var dialect = &sqlstore.Dialect{
	Name:                  "sqlite",
	PrepareStatements:     true,
	TextTimes:             true,
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

// DefaultBusyTimeout is how long Open waits for a database another process holds locked.
const DefaultBusyTimeout = 10 * time.Second

// Options tune a database opened by OpenWith.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock another process holds before
	// it fails with SQLITE_BUSY (SQLite's busy_timeout); 0 fails at once.
	BusyTimeout time.Duration
	// StatementLog, when set, gets a debug record for every statement (see
	// sqlstore.Config.StatementLog).
	StatementLog *slog.Logger
	// WriteWait, when set, is told how long each write transaction waited for the single
	// writer (see sqlstore.Config.WriteWait).
	WriteWait func(urgent bool, waited time.Duration)
}

// Open opens (creating if needed) the database at path, migrates it and sets up sealing
// with a Sealer from newSealer. It fails with store.ErrWrongPassphrase if the database's
// secrets were sealed with another key, and with store.ErrSchemaTooNew if a newer
// garrison migrated it. It waits DefaultBusyTimeout for a lock held by another process.
func Open(ctx context.Context, path string, newSealer store.NewSealer) (*Store, error) {
	return OpenWith(ctx, path, newSealer, Options{BusyTimeout: DefaultBusyTimeout})
}

// OpenWith is Open with options. The database file and its -wal and -shm files are
// private to the owner (mode 0600) whatever the umask, and looser modes left by an
// earlier run are tightened.
func OpenWith(ctx context.Context, path string, newSealer store.NewSealer, o Options) (*Store, error) {
	return open(ctx, path, newSealer, o, sub(migrations))
}

// open is OpenWith with the migrations to apply.
func open(ctx context.Context, path string, newSealer store.NewSealer, o Options, fsys fs.FS) (*Store, error) {
	if err := privateFiles(path); err != nil {
		return nil, err
	}
	w, err := openDB(path, true, o.BusyTimeout)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	r, err := openDB(path, false, o.BusyTimeout)
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(max(2, runtime.GOMAXPROCS(0)))
	s, err := sqlstore.New(ctx, sqlstore.Config{
		Dialect: dialect, Write: w, Read: r, Migrations: fsys, NewSealer: newSealer, SingleWriter: true,
		StatementLog: o.StatementLog, WriteWait: o.WriteWait,
	})
	if err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return &Store{Store: s, path: path, opts: o, w: w, r: r}, nil
}

// privateFiles creates the database file with mode 0600 if it does not exist, and sets
// mode 0600 on it and on its -wal and -shm files where they exist with another mode.
// SQLite creates the -wal and -shm files with the database file's mode, so they stay
// private too.
func privateFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sqlite: %w", err)
		}
		if fi.Mode().Perm() != 0o600 {
			if err := os.Chmod(p, 0o600); err != nil {
				return fmt.Errorf("sqlite: making %s private: %w", p, err)
			}
		}
	}
	return nil
}

// Path returns the database file the store was opened on.
func (s *Store) Path() string { return s.path }

// Options returns the options the store was opened with.
func (s *Store) Options() Options { return s.opts }

// openDB opens a handle on the database file. The writer's transactions begin IMMEDIATE
// so read-modify-write cannot deadlock on lock upgrades.
func openDB(path string, writer bool, busyTimeout time.Duration) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busyTimeout.Milliseconds(), 10)+")")
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

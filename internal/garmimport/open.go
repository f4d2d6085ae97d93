package garmimport

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	_ "github.com/jackc/pgx/v5/stdlib" // GARM's PostgreSQL backend
	_ "modernc.org/sqlite"             // GARM's SQLite backend
)

// openSource opens GARM's database as its config says, read-only.
func openSource(ctx context.Context, c garmConfig) (*source, error) {
	switch c.Database.Backend {
	case backendPostgres:
		return openPostgres(ctx, c.Database.Postgres)
	default:
		return openSQLite(ctx, c.Database.SQLite.DBFile)
	}
}

// openPostgres reads GARM's PostgreSQL database in one read-only, repeatable-read
// transaction: one consistent snapshot, and no write can happen.
func openPostgres(ctx context.Context, p garmPostgres) (*source, error) {
	s := &source{backend: backendPostgres, location: p.location()}
	db, err := sql.Open("pgx", p.dsn())
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSource, s.location, err)
	}
	s.main, err = s.begin(ctx, db, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		_ = s.close()
		return nil, err
	}
	s.blob = s.main
	return s, nil
}

// openSQLite copies GARM's SQLite database and its blob database, each with its -wal
// file (where a GARM stopped without a checkpoint keeps its newest rows), into a private
// temporary directory, and reads the copies: GARM's files are only ever read. The copies
// are removed by close.
func openSQLite(ctx context.Context, dbFile string) (*source, error) {
	s := &source{backend: backendSQLite, location: dbFile}
	dir, err := os.MkdirTemp("", "garrison-import-garm-*")
	if err != nil {
		return nil, fmt.Errorf("import-garm: temporary directory: %w", err)
	}
	s.closers = append(s.closers, func() error { return os.RemoveAll(dir) })
	if err := s.openSQLiteFile(ctx, dbFile, filepath.Join(dir, "garm.db"), true); err != nil {
		_ = s.close()
		return nil, err
	}
	blob := filepath.Join(filepath.Dir(dbFile), "blob-"+filepath.Base(dbFile))
	if err := s.openSQLiteFile(ctx, blob, filepath.Join(dir, "blob.db"), false); err != nil {
		_ = s.close()
		return nil, err
	}
	return s, nil
}

// openSQLiteFile copies one database (and its -wal) to copyPath and opens the copy in a
// read transaction: s.main when main, else s.blob. A missing blob database is no error.
func (s *source) openSQLiteFile(ctx context.Context, from, copyPath string, main bool) error {
	n, err := copyPrivate(from, copyPath)
	if errors.Is(err, fs.ErrNotExist) && !main {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	wal, err := copyPrivate(from+"-wal", copyPath+"-wal")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	idx := 0
	if !main {
		idx = 1
	}
	s.sizes[idx] = n + wal
	q := url.Values{"_pragma": {"query_only(1)"}}
	db, err := sql.Open("sqlite", "file:"+copyPath+"?"+q.Encode())
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrSource, from, err)
	}
	db.SetMaxOpenConns(1)
	tx, err := s.begin(ctx, db, nil)
	if err != nil {
		return err
	}
	var probe int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(&probe); err != nil {
		return fmt.Errorf("%w: %s is not an SQLite database: %v", ErrSource, from, err)
	}
	if main {
		s.main = tx
	} else {
		s.blob = tx
	}
	return nil
}

// copyPrivate copies a file to a new file of mode 0600 and returns its size.
func copyPrivate(from, to string) (int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("copying %s: %w", from, err)
	}
	return n, nil
}

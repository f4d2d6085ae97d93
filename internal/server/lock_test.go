package server

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison/internal/config"
)

// sqliteAt is a SQLite database setting with the file at path.
func sqliteAt(path string) config.Database {
	return config.Database{Backend: config.BackendSQLite, SQLite: config.SQLite{DBFile: path}}
}

// TestLockServer: a second holder of a server's locks is refused with an error naming
// what is locked and the holder's PID, until the first releases them.
func TestLockServer(t *testing.T) {
	shared := t.TempDir()
	tests := []struct {
		name       string
		dir1, dir2 string
		db1, db2   config.Database
		what       string // what the refusal names
	}{
		{
			name: "same data directory", dir1: shared, dir2: shared,
			db1: sqliteAt(filepath.Join(shared, "garrison.db")), db2: sqliteAt(filepath.Join(shared, "garrison.db")),
			what: "data directory " + shared,
		},
		{
			name: "same data directory, PostgreSQL", dir1: shared, dir2: shared,
			db1: config.Database{Backend: config.BackendPostgres}, db2: config.Database{Backend: config.BackendPostgres},
			what: "data directory " + shared,
		},
		{
			name: "one database outside two data directories", dir1: t.TempDir(), dir2: t.TempDir(),
			db1: sqliteAt(filepath.Join(shared, "g.db")), db2: sqliteAt(filepath.Join(shared, "g.db")),
			what: "database " + filepath.Join(shared, "g.db"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, err := lockServer(tt.dir1, tt.db1)
			if err != nil {
				t.Fatal(err)
			}
			_, err = lockServer(tt.dir2, tt.db2)
			if !errors.Is(err, errLocked) {
				t.Fatalf("second lock: %v, want errLocked", err)
			}
			for _, want := range []string{tt.what, "pid " + strconv.Itoa(os.Getpid())} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if err := first.Unlock(); err != nil {
				t.Fatal(err)
			}
			second, err := lockServer(tt.dir2, tt.db2)
			if err != nil {
				t.Fatalf("after the first released the locks: %v", err)
			}
			if err := second.Unlock(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLockServerSeparateDirectories: servers on separate data directories, each with its
// database inside, do not block each other.
func TestLockServerSeparateDirectories(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	la, err := lockServer(a, sqliteAt(filepath.Join(a, "garrison.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer la.Unlock()
	lb, err := lockServer(b, sqliteAt(filepath.Join(b, "garrison.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Unlock()
	if len(la) != 1 || len(lb) != 1 {
		t.Errorf("%d and %d locks, want only the data directories'", len(la), len(lb))
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

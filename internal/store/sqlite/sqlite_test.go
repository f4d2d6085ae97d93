package sqlite_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// openTB opens a store on a new file in a temporary directory.
func openTB(tb testing.TB) store.Store {
	tb.Helper()
	s, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "garrison.db"), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

func open(t *testing.T) store.Store { return openTB(t) }

// openAt opens a store on a new file migrated up to version only.
func openAt(t *testing.T, version int64) store.Store {
	s, err := sqlite.OpenAt(t.Context(), filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer(storetest.Passphrase), version)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func reopen(t *testing.T, s store.Store, newSealer store.NewSealer) (store.Store, error) {
	r, err := sqlite.Open(t.Context(), s.(*sqlite.Store).Path(), newSealer)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, nil
}

// rawContains searches the database file and its -wal and -shm files.
func rawContains(t *testing.T, s store.Store, needle []byte) bool {
	path := s.(*sqlite.Store).Path()
	found := false
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		found = found || bytes.Contains(b, needle)
	}
	return found
}

// rawDB opens the store's database file directly.
func rawDB(t *testing.T, s store.Store) *sql.DB {
	db, err := sql.Open("sqlite", s.(*sqlite.Store).Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestConformance(t *testing.T) {
	storetest.Run(t, open, storetest.WithReopen(reopen), storetest.WithRawContains(rawContains),
		storetest.WithDB(rawDB), storetest.WithOpenAt(openAt))
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) store.Store { return openTB(b) })
}

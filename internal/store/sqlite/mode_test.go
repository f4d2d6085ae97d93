package sqlite_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// withUmask runs fn with the process umask set to mask. The umask is process-wide: the
// callers are not parallel tests, so no other test of this package runs meanwhile.
func withUmask(mask int, fn func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

// checkPrivate fails the test unless path exists with mode 0600.
func checkPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("%s has mode %04o, want 0600", filepath.Base(path), perm)
	}
}

// writeController makes the store write, so the WAL holds a frame.
func writeController(t *testing.T, s *sqlite.Store) {
	t.Helper()
	if _, err := s.UpdateController(t.Context(), func(*garrison.Controller) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestDatabaseFilesArePrivate: under a umask of 0, in a world-readable directory, the
// database and its -wal and -shm files are created 0600.
func TestDatabaseFilesArePrivate(t *testing.T) {
	withUmask(0, func() {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "garrison.db")
		s, err := sqlite.Open(t.Context(), path, storetest.NewSealer(storetest.Passphrase))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		writeController(t, s)
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			checkPrivate(t, p)
		}
	})
}

// TestLooseDatabaseFilesAreTightened: files an earlier run left readable by others are
// made 0600 when the database is opened.
func TestLooseDatabaseFilesAreTightened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "garrison.db")
	s, err := sqlite.Open(t.Context(), path, storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A crash leaves the -wal and -shm files behind; here they are empty, which SQLite
	// accepts as "no WAL content".
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err = sqlite.Open(t.Context(), path, storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeController(t, s)
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		checkPrivate(t, p)
	}
}

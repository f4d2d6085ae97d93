package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/garrison-ci/garrison/internal/config"
)

// LockFileName is the lock file in the data directory.
const LockFileName = "garrison.lock"

// errLocked is wrapped by the error of a lock another process holds.
var errLocked = errors.New("in use by another garrison server")

// heldLock is an exclusive flock(2) on a lock file. The kernel releases it when the
// process exits, however it exits, so a lock file left by a killed server does not
// block the next one. The file is opened close-on-exec, so provider processes do not
// inherit (and keep) the lock.
type heldLock struct{ f *os.File }

// lockPath takes the exclusive lock on the file at path, creating it with mode 0600,
// and writes this process's PID into it. If another process holds it the error wraps
// errLocked and names what (a data directory, a database) and the holder's PID.
func lockPath(path, what string) (*heldLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is %w (pid %s); stop that server first, or give this one another --data-dir",
				what, errLocked, holderPID(path))
		}
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	if err := writePID(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	return &heldLock{f: f}, nil
}

// writePID replaces the content of the lock file with this process's PID.
func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// holderPID reads the PID the holder of a lock wrote, or says it is unknown (the holder
// may not have written it yet).
func holderPID(path string) string {
	b, err := os.ReadFile(path)
	if pid := strings.TrimSpace(string(b)); err == nil && pid != "" {
		return pid
	}
	return "unknown"
}

// Unlock releases the lock. The file stays: removing it would race with a server
// that opened it and is about to lock it.
func (l *heldLock) Unlock() error { return l.f.Close() }

// serverLocks are the locks one server holds.
type serverLocks []*heldLock

// lockServer takes the locks of a server on dataDir: the data directory's, and with
// SQLite the database's too when db_file is outside the data directory (so that two
// servers with different data directories cannot share one database either).
func lockServer(dataDir string, db config.Database) (serverLocks, error) {
	dirLock, err := lockPath(filepath.Join(dataDir, LockFileName), "data directory "+dataDir)
	if err != nil {
		return nil, err
	}
	locks := serverLocks{dirLock}
	if db.Backend == config.BackendSQLite && !sameDir(filepath.Dir(db.SQLite.DBFile), dataDir) {
		dbLock, err := lockPath(db.SQLite.DBFile+".lock", "database "+db.SQLite.DBFile)
		if err != nil {
			_ = locks.Unlock()
			return nil, err
		}
		locks = append(locks, dbLock)
	}
	return locks, nil
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// Unlock releases every lock.
func (ls serverLocks) Unlock() error {
	var errs []error
	for _, l := range ls {
		errs = append(errs, l.Unlock())
	}
	return errors.Join(errs...)
}

package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// GARM's log file rotation (its lumberjack settings), which garrison keeps.
const (
	logMaxSize    = 500 << 20 // bytes; a write that would pass it rotates first
	logMaxBackups = 3
	logMaxAge     = 28 * 24 * time.Hour
)

// backupTimeFormat is the time in a backup's name, UTC: garrison-2026-11-24T10-04-05.123.log.
const backupTimeFormat = "2006-01-02T15-04-05.000"

// logFile is the server's log file ([logging] log_file): opened for appending with mode
// 0600, rotated when it would grow past maxSize, and on demand (SIGHUP). Rotating
// renames the file to a timestamped backup and opens a new one; the backup is then
// gzipped in the background (name.log.gz, as GARM's are), and backups beyond maxBackups
// or older than maxAge are removed.
type logFile struct {
	path       string
	maxSize    int64
	maxBackups int
	maxAge     time.Duration
	now        func() time.Time
	gzip       bool           // compress backups
	compress   sync.WaitGroup // compressions under way; Close waits for them

	mu    sync.Mutex // guards f, size and limit
	f     *os.File   // nil after Close
	size  int64      // bytes in f
	limit int64      // a write taking size past it rotates first
}

// openLogFile opens (creating, with its directory) the log file at path with GARM's
// rotation settings.
func openLogFile(path string) (*logFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the log directory: %w", err)
	}
	l := &logFile{path: path, maxSize: logMaxSize, maxBackups: logMaxBackups, maxAge: logMaxAge, now: time.Now, gzip: true}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.openLocked(); err != nil {
		return nil, err
	}
	return l, nil
}

// openLocked opens the file at l.path for appending.
func (l *logFile) openLocked() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("opening log file: %w", err)
	}
	l.f, l.size, l.limit = f, fi.Size(), l.maxSize
	return nil
}

// Write appends p, rotating first if p would take the file past its maximum size.
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, fs.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.limit {
		if err := l.rotateLocked(); err != nil {
			// Keep logging to the current file rather than lose records; try again
			// when it has grown by another maxSize.
			l.limit = l.size + l.maxSize
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// Rotate starts a new log file (SIGHUP). If the file at the path is still the one being
// written, it is kept as a backup first; if something moved it away (logrotate), the
// path is just opened again. A nil *logFile (logging to stderr) has nothing to rotate.
func (l *logFile) Rotate() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fs.ErrClosed
	}
	return l.rotateLocked()
}

// rotateLocked renames the current file to a backup if it is still in place and not
// empty, opens a new file at the path, closes the old one and prunes the backups. If the
// new file cannot be opened, writing goes on to the old one.
func (l *logFile) rotateLocked() error {
	cur, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("rotating log file: %w", err)
	}
	if atPath, err := os.Stat(l.path); err == nil && os.SameFile(cur, atPath) && atPath.Size() > 0 {
		backup := l.backupName()
		if err := os.Rename(l.path, backup); err != nil {
			return fmt.Errorf("rotating log file: %w", err)
		}
		if l.gzip {
			l.compress.Go(func() { _ = gzipFile(backup) }) // on failure the plain backup stays
		}
	}
	old := l.f
	if err := l.openLocked(); err != nil {
		return err
	}
	if err := old.Close(); err != nil {
		return fmt.Errorf("closing the rotated log file: %w", err)
	}
	return l.prune()
}

// backupName returns a free backup name for the current time.
func (l *logFile) backupName() string {
	dir, prefix, ext := l.backupParts()
	t := l.now().UTC()
	for {
		name := filepath.Join(dir, prefix+t.Format(backupTimeFormat)+ext)
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		t = t.Add(time.Millisecond)
	}
}

// backupParts splits the log file's path into its directory, the backup name prefix
// ("garrison-") and the extension (".log", or "").
func (l *logFile) backupParts() (dir, prefix, ext string) {
	dir, base := filepath.Split(l.path)
	ext = filepath.Ext(base)
	return dir, strings.TrimSuffix(base, ext) + "-", ext
}

// prune removes the backups beyond maxBackups (newest kept) and those older than maxAge.
// GARM's gzipped backups (name.ext.gz) count as backups too.
func (l *logFile) prune() error {
	dir, prefix, ext := l.backupParts()
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return fmt.Errorf("pruning log backups: %w", err)
	}
	type backup struct {
		name string
		at   time.Time
	}
	var backups []backup
	for _, e := range entries {
		stamp, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.IsDir() {
			continue
		}
		stamp = strings.TrimSuffix(strings.TrimSuffix(stamp, ".gz"), ext)
		if at, err := time.Parse(backupTimeFormat, stamp); err == nil {
			backups = append(backups, backup{e.Name(), at})
		}
	}
	slices.SortFunc(backups, func(a, b backup) int { return b.at.Compare(a.at) })
	cutoff := l.now().Add(-l.maxAge)
	var errs []error
	for i, b := range backups {
		if i >= l.maxBackups || b.at.Before(cutoff) {
			errs = append(errs, os.Remove(filepath.Join(dir, b.name)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("pruning log backups: %w", err)
	}
	return nil
}

// Close closes the file. A nil *logFile (logging to stderr) has nothing to close.
func (l *logFile) Close() error {
	if l == nil {
		return nil
	}
	defer l.compress.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

package server

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testLogFile opens a log file in a new directory with a small size limit and a clock
// the test moves.
func testLogFile(t *testing.T, maxSize int64, now *time.Time) (*logFile, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := openLogFile(filepath.Join(dir, "garrison.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	l.maxSize, l.limit = maxSize, maxSize
	l.gzip = false // these tests read the backups; TestLogFileGzipsBackups covers compression
	l.now = func() time.Time { return *now }
	return l, dir
}

func write(t *testing.T, l *logFile, s string) {
	t.Helper()
	if _, err := l.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// dirFiles returns the names and contents of the files in dir.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestLogFileRotatesBySize: a write that would take the file past its size starts a
// new file, the old one kept under a timestamped name; only the newest backups stay.
func TestLogFileRotatesBySize(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 4, 5, 0, time.UTC)
	l, dir := testLogFile(t, 10, &now)
	for _, line := range []string{"aaaa\n", "bbbb\n", "cccc\n", "dddd\n", "eeee\n", "ffff\n", "gggg\n", "hhhh\n", "iiii\n"} {
		write(t, l, line)
		now = now.Add(time.Second)
	}
	got := dirFiles(t, dir)
	want := map[string]string{
		"garrison.log":                         "iiii\n",
		"garrison-2026-11-24T10-04-13.000.log": "gggg\nhhhh\n",
		"garrison-2026-11-24T10-04-11.000.log": "eeee\nffff\n",
		"garrison-2026-11-24T10-04-09.000.log": "cccc\ndddd\n",
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	for name, content := range want {
		if got[name] != content {
			t.Errorf("%s = %q, want %q (files %v)", name, got[name], content, got)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "garrison.log"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("new log file has mode %04o, want 0600", fi.Mode().Perm())
	}
}

// TestLogFileRotate: Rotate keeps the file in place as a backup and starts a new one;
// when something moved the file away it only opens the path again, leaving the moved
// file alone.
func TestLogFileRotate(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 4, 5, 0, time.UTC)
	l, dir := testLogFile(t, 1<<20, &now)
	write(t, l, "one\n")
	if err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	write(t, l, "two\n")
	if err := os.Rename(filepath.Join(dir, "garrison.log"), filepath.Join(dir, "moved.log")); err != nil {
		t.Fatal(err)
	}
	write(t, l, "three\n") // still to the moved file: nobody said to reopen yet
	if err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	write(t, l, "four\n")
	if err := l.Rotate(); err != nil { // twice in the same millisecond
		t.Fatal(err)
	}
	write(t, l, "five\n")
	got := dirFiles(t, dir)
	want := map[string]string{
		"garrison-2026-11-24T10-04-05.000.log": "one\n",
		"moved.log":                            "two\nthree\n",
		"garrison-2026-11-24T10-04-05.001.log": "four\n",
		"garrison.log":                         "five\n",
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	for name, content := range want {
		if got[name] != content {
			t.Errorf("%s = %q, want %q (files %v)", name, got[name], content, got)
		}
	}
}

// TestLogFilePrunesOldBackups: backups older than the maximum age go, GARM's gzipped
// ones included; other files stay.
func TestLogFilePrunesOldBackups(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 4, 5, 0, time.UTC)
	l, dir := testLogFile(t, 1<<20, &now)
	old := now.Add(-logMaxAge - time.Hour).Format(backupTimeFormat)
	recent := now.Add(-time.Hour).Format(backupTimeFormat)
	for _, name := range []string{"garrison-" + old + ".log", "garrison-" + old + ".log.gz", "garrison-" + recent + ".log.gz", "garrison-notes.log", "other.log"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(t, l, "line\n")
	if err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range dirFiles(t, dir) {
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"garrison-" + recent + ".log.gz", "garrison-2026-11-24T10-04-05.000.log", "garrison-notes.log", "garrison.log", "other.log"}
	if !slices.Equal(names, want) {
		t.Errorf("files %s, want %s", strings.Join(names, " "), strings.Join(want, " "))
	}
}

// TestNilLogFile: without a log file (stderr) Rotate and Close do nothing.
func TestNilLogFile(t *testing.T) {
	var l *logFile
	if err := l.Rotate(); err != nil {
		t.Error(err)
	}
	if err := l.Close(); err != nil {
		t.Error(err)
	}
}

// TestLogFileCreatesItsDirectory: as GARM does, a missing log directory is created.
func TestLogFileCreatesItsDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "var", "log", "garrison.log")
	l, err := openLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, l, "line\n")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := dirFiles(t, filepath.Dir(path)); got["garrison.log"] != "line\n" {
		t.Errorf("files %v", got)
	}
}

// TestLogFileGzipsBackups: a rotated backup is compressed to name.log.gz (mode 0600) and
// the plain backup removed, as GARM's rotation does; Close waits for it.
func TestLogFileGzipsBackups(t *testing.T) {
	dir := t.TempDir()
	l, err := openLogFile(filepath.Join(dir, "garrison.log"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, l, "before the rotation\n")
	if err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	write(t, l, "after\n")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	gz, _ := filepath.Glob(filepath.Join(dir, "garrison-*.log.gz"))
	plain, _ := filepath.Glob(filepath.Join(dir, "garrison-*.log"))
	if len(gz) != 1 || len(plain) != 0 {
		t.Fatalf("backups: gzipped %v, plain %v; want one gzipped", gz, plain)
	}
	if fi, err := os.Stat(gz[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode: %v %v, want 0600", fi, err)
	}
	f, err := os.Open(gz[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil || string(b) != "before the rotation\n" {
		t.Errorf("backup holds %q (%v)", b, err)
	}
	if got := dirFiles(t, dir)["garrison.log"]; got != "after\n" {
		t.Errorf("current file holds %q", got)
	}
}

// TestGzipFileFailureKeepsBackup: when the compressed file cannot be made, the plain
// backup stays and no partial file is left.
func TestGzipFileFailureKeepsBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "garrison-x.log")
	if err := os.WriteFile(path, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".gz", []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := gzipFile(path); err == nil {
		t.Fatal("gzipFile over an existing .gz succeeded")
	}
	files := dirFiles(t, dir)
	if files["garrison-x.log"] != "data" || files["garrison-x.log.gz"] != "in the way" {
		t.Errorf("files after a failed compression: %v", files)
	}
	if err := gzipFile(filepath.Join(dir, "missing.log")); err == nil {
		t.Error("gzipFile of a missing file succeeded")
	}
}

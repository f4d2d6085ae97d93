package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGHUPReopensLogFile runs a real server process logging to a file. After the file
// is moved away (as logrotate does), SIGHUP makes the server log to a new file at the
// configured path and it keeps serving; a second SIGHUP rotates the file in place and
// gzips the backup, as GARM does. SIGTERM then ends it cleanly, with a shutdown line in the log.
func TestSIGHUPReopensLogFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "garrison.log")
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "[logging]\nlog_file = %q\n", logPath), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := newCrashServer(t, filepath.Join(dir, "data"), freeAddr(t), cfg, filepath.Join(dir, "stderr.log"))
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Kill)
	waitForLine(t, srv, logPath, "garrison server listening")

	moved := filepath.Join(dir, "garrison.log.1")
	if err := os.Rename(logPath, moved); err != nil {
		t.Fatal(err)
	}
	hangUp(t, srv)
	waitForLine(t, srv, logPath, "log file reopened")
	if strings.Contains(readFile(t, moved), "reopened") {
		t.Error("the moved log file got lines after SIGHUP")
	}
	checkServing(t, srv)

	hangUp(t, srv)
	var backups []string
	waitFor(t, "the log file rotated in place and the backup gzipped", func() bool {
		var err error
		backups, err = filepath.Glob(filepath.Join(dir, "garrison-*.log.gz"))
		plain, _ := filepath.Glob(filepath.Join(dir, "garrison-*.log"))
		cur, _ := os.ReadFile(logPath) // may not exist yet
		return err == nil && len(backups) == 1 && len(plain) == 0 && strings.Contains(string(cur), "log file reopened")
	})
	if got := gunzipFile(t, backups[0]); !strings.Contains(got, "log file reopened") || strings.Contains(got, "listening") {
		t.Errorf("backup %s holds %q, want the lines since the first SIGHUP", backups[0], got)
	}
	checkServing(t, srv)

	if err := srv.Stop(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, readFile(t, filepath.Join(dir, "stderr.log")))
	}
	log := readFile(t, logPath)
	for _, want := range []string{"garrison server shutting down", "terminated", "garrison server stopped"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log after SIGTERM lacks %q:\n%s", want, log)
		}
	}
	if strings.Index(log, "shutting down") > strings.Index(log, "server stopped") {
		t.Errorf("the shutdown line comes after the stopped line:\n%s", log)
	}
}

// gunzipFile returns the uncompressed content of a gzipped file.
func gunzipFile(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hangUp(t *testing.T, srv *crashServer) {
	t.Helper()
	if err := srv.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
}

// checkServing fails the test unless the server answers /healthz.
func checkServing(t *testing.T, srv *crashServer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the server stopped answering: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: status %d", resp.StatusCode)
	}
}

// waitForLine waits until the file at path holds want, failing if the server exits.
func waitForLine(t *testing.T, srv *crashServer, path, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%q in %s", want, filepath.Base(path)), func() bool {
		if exited, err := srv.Exited(); exited {
			t.Fatalf("the server exited (%v) before writing %q", err, want)
		}
		b, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(b), want)
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

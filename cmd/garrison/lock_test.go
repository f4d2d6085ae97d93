package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison/internal/server"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestSecondServerRefused runs a real server process, then a second server on the same
// data directory, which must refuse to start naming the directory and the first one's
// PID. After the first is killed (SIGKILL: no cleanup), its lock file stays but a new
// server starts.
func TestSecondServerRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	first := newCrashServer(t, data, freeAddr(t), cfg, filepath.Join(dir, "first.log"))
	if err := first.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(first.Kill)

	out := secondServer(t, data, cfg)
	for _, want := range []string{data, "pid " + strconv.Itoa(first.Pid())} {
		if !strings.Contains(out, want) {
			t.Errorf("refusal %q does not say %q", out, want)
		}
	}

	first.Kill()
	if _, err := os.Stat(filepath.Join(data, server.LockFileName)); err != nil {
		t.Fatalf("the killed server's lock file: %v", err)
	}
	again := newCrashServer(t, data, freeAddr(t), cfg, filepath.Join(dir, "again.log"))
	if err := again.Start(t.Context()); err != nil {
		t.Fatalf("a stale lock file blocked the next server: %v", err)
	}
	if err := again.Stop(); err != nil {
		t.Error(err)
	}
}

// secondServer runs `garrison server` in-process on data and returns its output once it
// exited. If it starts serving instead, the test fails.
func secondServer(t *testing.T, data, cfg string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addr := freeAddr(t)
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"server", "--data-dir", data, "--config", cfg, "--listen", addr}, nil, &out, &out)
	}()
	exited := make(chan error, 1)
	go func() { exited <- fmt.Errorf("exit status %d", <-done) }()
	if err := testbed.WaitReady(ctx, "http://"+addr, exited); err == nil {
		cancel()
		<-exited
		t.Fatalf("a second server started on the same data directory:\n%s", out.String())
	}
	return out.String()
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

package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// crashServer runs `garrison server` as a child process (this test binary playing the
// garrison binary, see TestHelperProcess) on a fixed data directory and port, so
// that it can be killed and started again as the same server.
type crashServer struct {
	argv []string
	log  *os.File // the server's stdout and stderr, across restarts
	url  string

	cmd  *exec.Cmd
	done chan error // receives the exit of cmd
}

// newCrashServer prepares a server on dataDir, listening on addr with config cfg, that
// logs to logPath. It does not start it.
func newCrashServer(t *testing.T, dataDir, addr, cfg, logPath string) *crashServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return &crashServer{
		argv: []string{exe, "-test.run=^TestHelperProcess$", "--",
			"server", "--data-dir", dataDir, "--listen", addr, "--config", cfg},
		log: log, url: "http://" + addr,
	}
}

// start starts the server and waits until it answers /healthz.
func (s *crashServer) start(ctx context.Context) error {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	s.cmd, s.done = cmd, make(chan error, 1)
	go func() { s.done <- cmd.Wait() }()
	return s.waitReady(ctx)
}

// waitReady polls /healthz until it answers 200, the process exits or 60s passed.
func (s *crashServer) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/healthz", nil)
		if err != nil {
			return err
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("the server exited while starting: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("the server did not answer /healthz: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// kill ends the server with SIGKILL, as a crash or an OOM kill would, and reaps it.
func (s *crashServer) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// stop ends the server with SIGTERM and reports an unclean exit (a data race found by
// the race detector makes the server exit non-zero).
func (s *crashServer) stop() error {
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-s.done:
	case <-time.After(30 * time.Second):
		s.kill()
		err = errors.New("the server did not stop within 30s of SIGTERM")
	}
	s.cmd = nil
	return err
}

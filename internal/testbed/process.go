package testbed

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// serverReadyTimeout bounds the wait for a started server to answer /healthz.
const serverReadyTimeout = 60 * time.Second

// ServerProcess is `garrison server` as a child process on a fixed data directory, listen
// address and config, so that it can be killed, paused and started again as the same
// server (the crash, signal and replica tests, the bench).
type ServerProcess struct {
	argv []string
	env  []string
	log  *os.File // the server's stdout and stderr, across restarts
	// URL is the server's base URL (http://<listen address>).
	URL string

	mu   sync.Mutex // guards cmd and done
	cmd  *exec.Cmd
	done chan error // receives the exit of cmd
}

// NewServerProcess prepares `garrison server` (garrison runs the garrison binary: the
// server's arguments are appended to its Argv) on dataDir, listening on addr with the
// config file cfg, appending its output to logPath. It does not start it; Close closes
// the log.
func NewServerProcess(garrison Command, dataDir, addr, cfg, logPath string) (*ServerProcess, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	argv := append(append([]string(nil), garrison.Argv...), "server", "--data-dir", dataDir, "--listen", addr, "--config", cfg)
	return &ServerProcess{argv: argv, env: garrison.Env, log: log, URL: "http://" + addr}, nil
}

// Start starts the server and waits until it answers /healthz.
func (s *ServerProcess) Start(ctx context.Context) error {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	return WaitReady(ctx, s.URL, done)
}

// WaitReady polls url's /healthz until it answers 200, exited receives (the error is put
// back for the next reader), ctx ends or a minute passed.
func WaitReady(ctx context.Context, url string, exited chan error) error {
	ctx, cancel := context.WithTimeout(ctx, serverReadyTimeout)
	defer cancel()
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
		if err != nil {
			return err
		}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the server exited while starting: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("the server did not answer /healthz: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// running returns the process and its exit channel, or nil when it is not running.
func (s *ServerProcess) running() (*exec.Cmd, chan error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd, s.done
}

// forget marks the process as gone.
func (s *ServerProcess) forget() {
	s.mu.Lock()
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
}

// Running reports whether the process was started and not yet killed or stopped.
func (s *ServerProcess) Running() bool {
	cmd, _ := s.running()
	return cmd != nil
}

// Exited reports whether the started server exited by itself, and its exit error.
func (s *ServerProcess) Exited() (bool, error) {
	_, done := s.running()
	if done == nil {
		return false, nil
	}
	select {
	case err := <-done:
		done <- err
		return true, err
	default:
		return false, nil
	}
}

// Pid returns the process id (0 when not running).
func (s *ServerProcess) Pid() int {
	cmd, _ := s.running()
	if cmd == nil {
		return 0
	}
	return cmd.Process.Pid
}

// Signal sends sig to the running server.
func (s *ServerProcess) Signal(sig os.Signal) error {
	cmd, _ := s.running()
	if cmd == nil {
		return errors.New("the server is not running")
	}
	return cmd.Process.Signal(sig)
}

// Pause stops the server with SIGSTOP, as a long stop-the-world pause or a frozen VM
// would: it keeps its connections and claims but does nothing until Resume.
func (s *ServerProcess) Pause() error { return s.Signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *ServerProcess) Resume() error { return s.Signal(syscall.SIGCONT) }

// Kill ends the server with SIGKILL, as a crash or an OOM kill would, and reaps it.
func (s *ServerProcess) Kill() {
	cmd, done := s.running()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
	s.forget()
}

// Stop ends the server with SIGTERM and reports an unclean exit (a data race found by
// the race detector makes the server exit non-zero).
func (s *ServerProcess) Stop() error {
	cmd, done := s.running()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot act on SIGTERM
	_ = cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-done:
		s.forget()
	case <-time.After(30 * time.Second):
		s.Kill()
		err = errors.New("the server did not stop within 30s of SIGTERM")
	}
	return err
}

// Close kills the server if it still runs and closes its log.
func (s *ServerProcess) Close() error {
	s.Kill()
	return s.log.Close()
}

// FreeLoopbackAddr returns a loopback address with a port that was free a moment ago.
func FreeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// benchServerStartTimeout bounds the wait for a started server to answer HTTP.
const benchServerStartTimeout = 60 * time.Second

// benchServer is `garrison server` running as a child process, so that its CPU time and
// memory are its own.
type benchServer struct {
	url     string
	cmd     *exec.Cmd
	done    chan error
	started time.Time
}

// startBenchServer runs `garrison server` on dataDir with the config cfg on addr, appending its output to logPath, and waits until it answers HTTP.
func startBenchServer(ctx context.Context, self testbed.Command, addr, dataDir, cfg, logPath string) (*benchServer, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own descriptor
	args := append(append([]string(nil), self.Argv[1:]...), "server", "--data-dir", dataDir, "--config", cfg, "--listen", addr)
	cmd := exec.Command(self.Argv[0], args...)
	cmd.Env = append(os.Environ(), self.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	s := &benchServer{url: "http://" + addr, cmd: cmd, done: make(chan error, 1), started: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	go func() { s.done <- cmd.Wait() }()
	if err := s.waitReady(ctx); err != nil {
		return nil, errors.Join(err, s.kill())
	}
	return s, nil
}

// freeLoopbackAddr returns a loopback address with a port that was free a moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// waitReady polls the server until it answers any HTTP request.
func (s *benchServer) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, benchServerStartTimeout)
	defer cancel()
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/api/v1/controller-info", nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("the server exited before answering: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("the server did not answer within %s: %w", benchServerStartTimeout, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop ends the server with SIGTERM, or SIGKILL when it does not exit within 20 s.
func (s *benchServer) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.done <- err
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // a signalled exit
		}
		return err
	case <-time.After(20 * time.Second):
		return errors.Join(errors.New("the server ignored SIGTERM for 20s"), s.kill())
	}
}

// kill ends the server with SIGKILL, as a crash would, and reaps it.
func (s *benchServer) kill() error {
	_ = s.cmd.Process.Kill()
	err := <-s.done
	s.done <- err
	return nil
}

// procStats is what /proc says about a process.
type procStats struct {
	cpu         time.Duration // user + system time of the process itself
	childrenCPU time.Duration // of its waited-for children (the provider executions)
	rssKB       int64         // VmRSS
	hwmKB       int64         // VmHWM: peak RSS
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times (100 on every Linux ABI).
const clockTicks = 100

// stats reads /proc/<pid>/stat and /proc/<pid>/status of the server.
func (s *benchServer) stats() (procStats, error) { return pidStats(s.cmd.Process.Pid) }

// pidStats reads /proc/<pid>/stat and /proc/<pid>/status.
func pidStats(pid int) (procStats, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return procStats{}, err
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	if len(f) < 15 {
		return procStats{}, fmt.Errorf("short %s/stat", dir)
	}
	tick := func(i int) time.Duration { // f[i] is field i+3 of proc_pid_stat(5)
		n, _ := strconv.ParseInt(string(f[i]), 10, 64)
		return time.Duration(n) * time.Second / clockTicks
	}
	st := procStats{cpu: tick(11) + tick(12), childrenCPU: tick(13) + tick(14)}
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return st, err
	}
	st.rssKB, st.hwmKB = statusKB(status, "VmRSS:"), statusKB(status, "VmHWM:")
	return st, nil
}

// add sums two processes' figures (the replicas of a scenario).
func (p procStats) add(q procStats) procStats {
	return procStats{cpu: p.cpu + q.cpu, childrenCPU: p.childrenCPU + q.childrenCPU, rssKB: p.rssKB + q.rssKB, hwmKB: p.hwmKB + q.hwmKB}
}

// statusKB returns the kB value of a /proc/<pid>/status line.
func statusKB(status []byte, key string) int64 {
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte(key)); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return n
			}
		}
	}
	return 0
}

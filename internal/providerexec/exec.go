package providerexec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// execResult is what one execution produced.
type execResult struct {
	stdout   []byte
	overflow bool // stdout exceeded the cap; provider was killed
	stderr   string
	state    *os.ProcessState // nil if the process did not start
	err      error            // from Start/Wait
}

// errStdoutOverflow stops copying stdout once the cap is exceeded.
var errStdoutOverflow = errors.New("stdout limit exceeded")

// execute runs the executable once in its own process group with env and
// stdin. When ctx ends or stdout overflows, the whole group is killed;
// waiting for pipes held by descendants is bounded by DrainTimeout.
func (p *Provider) execute(ctx context.Context, env []string, stdin []byte) execResult {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	stdout := &capWriter{max: p.cfg.MaxStdout, onOverflow: stop}
	stderr := &tailBuffer{max: p.cfg.MaxStderr}

	cmd := exec.CommandContext(runCtx, p.cfg.Executable)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = p.cfg.DrainTimeout

	err := cmd.Run()
	if cmd.Process != nil && (err != nil || runCtx.Err() != nil) {
		// Descendants may survive the leader (timeout, overflow, or pipes
		// still held after exit): the group must not outlive the call.
		_ = killGroup(cmd.Process.Pid)
	}
	if errors.Is(err, exec.ErrWaitDelay) && !stdout.overflow && ctx.Err() == nil {
		err = nil // exited 0; only a descendant kept the pipes open
	}
	return execResult{
		stdout:   stdout.buf.Bytes(),
		overflow: stdout.overflow,
		stderr:   sanitize(stderr.bytes()),
		state:    cmd.ProcessState,
		err:      err,
	}
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// signalName names the signal that ended the process, or "".
func signalName(st *os.ProcessState) string {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return ws.Signal().String()
}

// capWriter keeps at most max bytes and fails the write that exceeds them.
// It is written by one goroutine and read after Wait.
type capWriter struct {
	max        int64
	buf        bytes.Buffer
	overflow   bool
	onOverflow func()
}

// Write appends p, or reports overflow once the cap would be exceeded.
func (w *capWriter) Write(p []byte) (int, error) {
	if int64(w.buf.Len())+int64(len(p)) > w.max {
		if !w.overflow {
			w.overflow = true
			w.onOverflow()
		}
		return 0, errStdoutOverflow
	}
	return w.buf.Write(p)
}

// ReadFrom copies r into w through a pooled buffer (see readThrough).
func (w *capWriter) ReadFrom(r io.Reader) (int64, error) { return readThrough(w, r) }

// copyBuffers lend the copies of a provider's output a read buffer. os/exec copies each
// pipe with io.Copy, which allocates 32 KB per stream and call unless the writer reads
// for itself: two thirds of what a full repair of 1,000 pools allocated.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// writerOnly hides a writer's ReadFrom, so that io.CopyBuffer does not call it back.
type writerOnly struct{ io.Writer }

// readThrough copies r into w with a buffer from copyBuffers, as io.Copy would with its own.
func readThrough(w io.Writer, r io.Reader) (int64, error) {
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	return io.CopyBuffer(writerOnly{w}, r, *bp)
}

// tailBuffer keeps the last max bytes written (memory bounded by 2*max).
type tailBuffer struct {
	max int
	buf []byte
}

// Write appends p and drops everything but the tail.
func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return n, nil
}

// ReadFrom copies r into t through a pooled buffer (see readThrough).
func (t *tailBuffer) ReadFrom(r io.Reader) (int64, error) { return readThrough(t, r) }

// bytes returns the retained tail.
func (t *tailBuffer) bytes() []byte {
	if len(t.buf) > t.max {
		return t.buf[len(t.buf)-t.max:]
	}
	return t.buf
}

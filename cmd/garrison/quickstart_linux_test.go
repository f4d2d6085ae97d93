package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

// TestQuickStart runs the README's Quick start as written: the fenced command blocks of its
// section, in order, in one bash session, so that built binaries, a real server, the forge
// simulator and simulated runners do what a reader's shell would. Only what a test must
// differs: free ports replace 9997 and 9998, a temporary directory stands in for the
// repository root (the script is called by its path in the repository) and
// GARRISON_CONFIG_DIR keeps the client profile there. After the pool is added a runner must
// become idle; after the job is queued a runner must run it to completion.
func TestQuickStart(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the Quick start needs %s: %v", tool, err)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := quickStartBlocks(string(readme))
	work := t.TempDir()
	q := &quickStart{t: t, work: work, simURL: "http://" + freeAddr(t)}
	subst := strings.NewReplacer(
		"127.0.0.1:9997", freeAddr(t),
		"127.0.0.1:9998", strings.TrimPrefix(q.simURL, "http://"),
		"scripts/quickstart.sh", filepath.Join(root, "scripts", "quickstart.sh"),
	)
	for _, s := range []string{"127.0.0.1:9997", "127.0.0.1:9998", "scripts/quickstart.sh", "garrison pool add", "/_sim/jobs"} {
		if !strings.Contains(strings.Join(blocks, "\n"), s) {
			t.Fatalf("the Quick start of README.md no longer contains %q; update this test with it", s)
		}
	}
	t.Cleanup(q.removeInstances) // after the session stopped, so no runner is made again
	sh := startSession(t, work, "GARRISON_CONFIG_DIR="+filepath.Join(work, "client"))
	var idle, served bool
	for i, b := range blocks {
		out := sh.run(subst.Replace(b))
		t.Logf("block %d:\n%s\noutput:\n%s", i+1, b, out)
		if strings.Contains(b, "garrison init ") {
			q.ctrlID = q.controllerID()
		}
		if strings.Contains(b, "garrison pool add") {
			q.waitIdleRunner()
			idle = true
		}
		if strings.Contains(b, "/_sim/jobs") {
			q.waitJobServed()
			served = true
		}
	}
	if !idle || !served {
		t.Errorf("Quick start checked: runner idle %v, job served %v", idle, served)
	}
}

// quickStartBlocks returns the fenced code blocks of the README's "## Quick start" section
// (up to the next heading).
func quickStartBlocks(readme string) []string {
	var blocks []string
	var cur []string
	in, fenced := false, false
	for line := range strings.SplitSeq(readme, "\n") {
		switch {
		case !fenced && strings.HasPrefix(line, "#"):
			in = strings.TrimSpace(line) == "## Quick start"
		case in && strings.HasPrefix(line, "```"):
			if fenced {
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur = nil
			}
			fenced = !fenced
		case in && fenced:
			cur = append(cur, line)
		}
	}
	return blocks
}

// quickStart is what the checks between blocks need.
type quickStart struct {
	t      *testing.T
	work   string
	simURL string
	ctrlID string
}

// garrison runs the built client with args and decodes its JSON output into out.
func (q *quickStart) garrison(out any, args ...string) {
	q.t.Helper()
	cmd := exec.Command(filepath.Join(q.work, "bin", "garrison"), append(args, "--format", "json")...)
	cmd.Env = append(os.Environ(), "GARRISON_CONFIG_DIR="+filepath.Join(q.work, "client"))
	b, err := cmd.Output()
	if err != nil {
		q.t.Fatalf("garrison %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		q.t.Fatalf("garrison %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

func (q *quickStart) controllerID() string {
	var ci apiv1.ControllerInfo
	q.garrison(&ci, "controller", "show")
	return ci.ControllerID
}

// waitIdleRunner waits until the pool's runner has booted through the install script and
// registered: status running, runner status idle.
func (q *quickStart) waitIdleRunner() {
	var last []apiv1.Instance
	waitLong(q.t, "an idle runner", func() bool {
		q.garrison(&last, "runner", "list")
		for _, i := range last {
			if i.Status == "running" && i.RunnerStatus == "idle" {
				return true
			}
		}
		return false
	})
}

// waitJobServed waits until every job queued on the simulator was completed by a runner,
// and garrison recorded it so.
func (q *quickStart) waitJobServed() {
	var jobs []forgesim.JobJSON
	waitLong(q.t, "the queued job completed by a runner", func() bool {
		jobs = q.simJobs()
		for _, j := range jobs {
			if j.Status != "completed" {
				return false
			}
		}
		return len(jobs) > 0
	})
	for _, j := range jobs {
		if j.Conclusion != "success" || !strings.HasPrefix(j.RunnerName, "garm-") {
			q.t.Errorf("simulator job %d: conclusion %q, runner %q; want success by a garrison runner", j.ID, j.Conclusion, j.RunnerName)
		}
		waitLong(q.t, fmt.Sprintf("garrison to record job %d completed", j.ID), func() bool {
			var recorded []apiv1.Job
			q.garrison(&recorded, "job", "list")
			for _, r := range recorded {
				if r.WorkflowJobID == j.ID && r.Status == "completed" && r.RunnerName == j.RunnerName {
					return true
				}
			}
			return false
		})
	}
}

// waitLong polls cond until it holds; its deadline only stops a hung test.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (q *quickStart) simJobs() []forgesim.JobJSON {
	q.t.Helper()
	resp, err := http.Get(q.simURL + "/_sim/jobs")
	if err != nil {
		q.t.Fatalf("simulator jobs: %v", err)
	}
	defer resp.Body.Close()
	var jobs []forgesim.JobJSON
	if err := json.NewDecoder(resp.Body).Decode(&jobs); err != nil {
		q.t.Fatalf("simulator jobs: %v", err)
	}
	return jobs
}

// removeInstances ends the simulated runners' processes, as `garrison-dev demo` does.
func (q *quickStart) removeInstances() {
	if q.ctrlID == "" {
		return
	}
	path := filepath.Join(q.work, ".data", "sim.toml")
	cfg, err := simprovider.LoadConfig(path)
	if err != nil {
		q.t.Errorf("removing the simulated runners: %v", err)
		return
	}
	p, err := simprovider.NewWithConfig(cfg, sdk.Environment{ControllerID: q.ctrlID, ConfigFile: path})
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err = p.RemoveAllInstances(ctx)
	}
	if err != nil {
		q.t.Errorf("removing the simulated runners: %v", err)
	}
}

// session is one bash process reading commands from a pipe, like a terminal session: what
// a block exports or starts in the background is there for the next block.
type session struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // bash's stdout and stderr; closed when bash exits
}

// blockDone is echoed after each block to find its end in the output.
const blockDone = "__garrison_quickstart_block_done__"

// blockTimeout bounds one block; the first includes building the binaries.
const blockTimeout = 10 * time.Minute

func startSession(t *testing.T, dir string, env ...string) *session {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-u", "-o", "pipefail")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // one group: bash and its background jobs
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s := &session{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1024)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	t.Cleanup(s.stop)
	return s
}

// run sends block to bash and returns its output once the block ended; a failing command
// ends bash (-e), which fails the test with the output.
func (s *session) run(block string) string {
	s.t.Helper()
	if _, err := fmt.Fprintf(s.stdin, "%s\necho %s\n", block, blockDone); err != nil {
		s.t.Fatalf("writing to bash: %v", err)
	}
	var out strings.Builder
	timeout := time.After(blockTimeout)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("bash exited in the block:\n%s\noutput:\n%s", block, out.String())
			}
			if line == blockDone {
				return out.String()
			}
			out.WriteString(line + "\n")
		case <-timeout:
			s.t.Fatalf("the block did not end within %v:\n%s\noutput:\n%s", blockTimeout, block, out.String())
		}
	}
}

// stop ends bash and everything it started in the background (the server and the
// simulator): SIGTERM to the process group, SIGKILL if it outlives a grace period.
func (s *session) stop() {
	s.stdin.Close()
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			s.t.Errorf("bash: %v", err)
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for groupLives(pgid) {
		if time.Now().After(deadline) {
			s.t.Errorf("the Quick start's processes outlived SIGTERM; killing them")
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// groupLives reports whether process group pgid has a member that is not a zombie.
func groupLives(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

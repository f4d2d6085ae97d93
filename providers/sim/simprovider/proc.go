package simprovider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// markerEnv is set in every boot process's environment to <provider_id>, so that a
// recorded process group id is only signalled while a process of that instance is in it.
const markerEnv = "GARRISON_SIM_INSTANCE"

// How long DeleteInstance waits for a boot process group after SIGTERM and SIGKILL.
const (
	termGrace = 5 * time.Second
	killGrace = 2 * time.Second
	pollEvery = 50 * time.Millisecond
)

// ErrBootSurvived is returned when a boot process group outlives SIGKILL.
var ErrBootSurvived = errors.New("sim: boot processes survived SIGKILL")

// groupAlive reports whether process group pgid still has a live (not zombie) member
// started for instance id. Zombies count as gone: nobody may reap the orphans. Without
// /proc it falls back to kill(-pgid, 0).
func groupAlive(pgid int, id string) bool {
	if pgid <= 1 {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if group, live := procGroup(pid); live && group == pgid && hasMarker(pid, id) {
			return true
		}
	}
	return false
}

// procGroup reads the process group of pid and whether it is alive (not a zombie).
func procGroup(pid int) (pgid int, live bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0, false
	}
	pgid, err = strconv.Atoi(f[2])
	return pgid, err == nil && f[0] != "Z" && f[0] != "X"
}

// hasMarker reports whether pid was started for instance id. An unreadable environment
// (another user) counts as not ours.
func hasMarker(pid int, id string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	want := []byte(markerEnv + "=" + id)
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// stopGroup ends boot process group pgid of instance id: SIGTERM (and SIGCONT, in case
// it was stopped), then SIGKILL after termGrace. It returns once no member is left.
func stopGroup(ctx context.Context, pgid int, id string) error {
	for _, step := range []struct {
		sig   syscall.Signal
		grace time.Duration
	}{{syscall.SIGTERM, termGrace}, {syscall.SIGKILL, killGrace}} {
		if !groupAlive(pgid, id) {
			return nil
		}
		if err := signalGroup(pgid, step.sig); err != nil {
			return err
		}
		if err := waitGone(ctx, pgid, id, step.grace); err != nil {
			return err
		}
	}
	if groupAlive(pgid, id) {
		return fmt.Errorf("%w: process group %d", ErrBootSurvived, pgid)
	}
	return nil
}

// signalGroup sends sig (and SIGCONT after SIGTERM) to the group; a vanished group is fine.
func signalGroup(pgid int, sig syscall.Signal) error {
	err := syscall.Kill(-pgid, sig)
	if sig == syscall.SIGTERM && err == nil {
		err = syscall.Kill(-pgid, syscall.SIGCONT)
	}
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling boot process group %d: %w", pgid, err)
	}
	return nil
}

// waitGone polls until the group has no live member, grace passes or ctx ends.
func waitGone(ctx context.Context, pgid int, id string, grace time.Duration) error {
	deadline := time.Now().Add(grace)
	for groupAlive(pgid, id) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
	return nil
}

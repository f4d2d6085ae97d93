package providerexec

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/garrison-ci/garrison/provider"
)

// Sentinels classifying a failed call; test with errors.Is.
var (
	// ErrNotFound: the provider exited 30.
	ErrNotFound = errors.New("provider: instance not found")
	// ErrDuplicate: the provider exited 31.
	ErrDuplicate = errors.New("provider: duplicate instance")
	// ErrTimeout: the call's time limit or the caller's deadline expired and
	// the provider was killed.
	ErrTimeout = errors.New("provider: timed out")
	// ErrBadOutput: the provider exited 0 but its stdout violates the
	// contract (too large, not JSON, invalid instance, ...).
	ErrBadOutput = errors.New("provider: invalid output")
	// ErrFailed: the provider could not be run, exited non-zero (other than
	// 30/31), died on a signal, or the call was cancelled.
	ErrFailed = errors.New("provider: command failed")
	// ErrInvalidRequest: the caller's arguments cannot be sent (e.g. extra
	// specs that are not JSON); the provider was not run.
	ErrInvalidRequest = errors.New("provider: invalid request")
)

// CallError describes one failed provider call.
type CallError struct {
	Provider string
	Command  provider.Command
	// Instance is GARM_INSTANCE_ID, or the name for CreateInstance.
	Instance string
	PoolID   string
	// ExitCode is the exit status, -1 if the provider did not exit normally.
	ExitCode int
	// Signal names the signal that killed the provider, if any.
	Signal string
	// Stderr is the tail of the provider's stderr (bounded).
	Stderr string
	// Stdout is the start of stdout, kept only for non-zero exits.
	Stdout string
	// Kind is one of the package sentinels.
	Kind error
	// Err is the underlying cause, if any.
	Err error
}

// maxMessageTail bounds how much stderr/stdout goes into Error().
const maxMessageTail = 512

// Error renders provider, command, instance, cause and a stderr excerpt.
func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %q: %s", e.Provider, e.Command)
	if e.Instance != "" {
		fmt.Fprintf(&b, " (instance %q)", e.Instance)
	} else if e.PoolID != "" {
		fmt.Fprintf(&b, " (pool %q)", e.PoolID)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	if out := excerpt(e.Stderr); out != "" {
		fmt.Fprintf(&b, ": stderr: %s", out)
	} else if out := excerpt(e.Stdout); out != "" {
		fmt.Fprintf(&b, ": stdout: %s", out)
	}
	return b.String()
}

// ProviderStderr returns the tail of what the provider wrote to stderr: the text to show
// users for the failure ("" when it wrote nothing).
func (e *CallError) ProviderStderr() string { return e.Stderr }

// Unwrap exposes both the kind and the cause to errors.Is/As.
func (e *CallError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// excerpt returns the last maxMessageTail bytes of s, trimmed, valid UTF-8.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMessageTail {
		s = "..." + s[len(s)-maxMessageTail:]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// sanitize makes provider bytes safe to keep as a string.
func sanitize(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

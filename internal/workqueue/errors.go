package workqueue

import (
	"errors"
	"fmt"
)

// TerminalError marks a Handler failure that retrying cannot fix (a configuration error,
// say). The key is not requeued; Options.OnTerminal is told.
type TerminalError struct{ Err error }

func (e *TerminalError) Error() string { return "terminal: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *TerminalError) Unwrap() error { return e.Err }

// Terminal wraps err so that the queue does not retry it. Terminal(nil) is nil.
func Terminal(err error) error {
	if err == nil {
		return nil
	}
	return &TerminalError{Err: err}
}

// IsTerminal reports whether err (or any error it wraps) is a TerminalError.
func IsTerminal(err error) bool {
	var t *TerminalError
	return errors.As(err, &t)
}

// PanicError is what a recovered Handler panic becomes.
type PanicError struct {
	Key   string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("workqueue: handler panic on %q: %v", e.Key, e.Value)
}

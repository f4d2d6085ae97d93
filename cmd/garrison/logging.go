package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/garrison-ci/garrison/internal/config"
)

// newLogger builds the server's logger from [logging]. The returned closer closes the log
// file, if any.
func newLogger(c config.Logging, stderr io.Writer) (*slog.Logger, io.Closer, error) {
	w, closer := stderr, io.Closer(nopCloser{})
	if c.File != "" {
		f, err := os.OpenFile(c.File, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("opening log file: %w", err)
		}
		w, closer = f, f
	}
	opts := &slog.HandlerOptions{Level: c.Level, AddSource: c.Source}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if c.Format == config.LogFormatJSON {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(h), closer, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

package server

import (
	"io"
	"log/slog"

	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/logstream"
)

// NewLogger builds a logger from [logging] as the server does: to the log file if one
// is set, else to w. The closer closes the log file (a no-op without one).
func NewLogger(c config.Logging, w io.Writer) (*slog.Logger, io.Closer, error) {
	return newLogger(c, w)
}

// newLogger builds the server's logger from [logging]: to the log file if one is set
// (returned, to be rotated and closed), else to stderr (the returned *logFile is nil,
// which Rotate and Close accept). With enable_log_streamer every record is also copied
// to the log stream's hub (logstream.FromLogger finds it).
func newLogger(c config.Logging, stderr io.Writer) (*slog.Logger, *logFile, error) {
	w := stderr
	var file *logFile
	if c.File != "" {
		f, err := openLogFile(c.File)
		if err != nil {
			return nil, nil, err
		}
		w, file = f, f
	}
	opts := &slog.HandlerOptions{Level: c.Level, AddSource: c.Source}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if c.Format == config.LogFormatJSON {
		h = slog.NewJSONHandler(w, opts)
	}
	if c.EnableLogStreamer {
		h = logstream.Handler(h, logstream.NewHub(), opts)
	}
	return slog.New(h), file, nil
}

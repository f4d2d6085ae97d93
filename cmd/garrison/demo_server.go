package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/garrison-ci/garrison/internal/server"
)

// demoServer is a garrison server running in-process on a loopback port.
type demoServer struct {
	url    string
	app    *server.Server
	cancel context.CancelFunc
	done   chan error
	logs   []io.Closer // closed by stop
}

// startDemoServer wires a server on dataDir with the config file cfgFile, logging to
// logW (closed by stop), and serves it on a free loopback port. The server keeps running
// when ctx ends; stop ends it.
func startDemoServer(ctx context.Context, dataDir, cfgFile string, logW io.WriteCloser) (*demoServer, error) {
	cfg, err := server.LoadConfig(server.Flags{DataDir: dataDir, ConfigFile: cfgFile})
	if err != nil {
		return nil, err
	}
	logger, closer, err := server.NewLogger(cfg.Logging, logW)
	if err != nil {
		return nil, err
	}
	a, err := server.New(ctx, cfg, logger)
	if err != nil {
		closer.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		closer.Close()
		a.Close()
		return nil, fmt.Errorf("listening: %w", err)
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &demoServer{url: "http://" + ln.Addr().String(), app: a, cancel: cancel, done: make(chan error, 1),
		logs: []io.Closer{closer, logW}}
	logger.Info("garrison demo server listening", "addr", ln.Addr().String(), "data_dir", dataDir)
	go func() { s.done <- a.Serve(sctx, ln) }()
	return s, nil
}

// stop shuts the server down, waits for its background work and closes the store.
func (s *demoServer) stop() error {
	s.cancel()
	err := <-s.done
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	errs := []error{err, s.app.Close()}
	for _, c := range s.logs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// startPath matches the simulator route a runner calls when it starts a job.
var startPath = regexp.MustCompile(`^/_sim/jobs/([0-9]+)/start$`)

// startRecorder serves the forge simulator and notes, to the millisecond, when each job
// was reported started (the simulator keeps whole seconds only).
type startRecorder struct {
	next http.Handler

	mu      sync.Mutex // guards started
	started map[int64]time.Time
}

func newStartRecorder(next http.Handler) *startRecorder {
	return &startRecorder{next: next, started: map[int64]time.Time{}}
}

func (r *startRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	m := startPath.FindStringSubmatch(req.URL.Path)
	if m == nil || req.Method != http.MethodPost {
		r.next.ServeHTTP(w, req)
		return
	}
	at := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	r.next.ServeHTTP(sw, req)
	id, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || sw.status/100 != 2 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.started[id]; !seen {
		r.started[id] = at
	}
}

// startedAt returns when job id was reported started, if it was.
func (r *startRecorder) startedAt(id int64) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.started[id]
	return t, ok
}

// statusWriter remembers the status code of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

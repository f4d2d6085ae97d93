package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/garrison-ci/garrison/internal/server"
)

// ServerOptions tune StartServer.
type ServerOptions struct {
	// ConfigFile is the server's config ("" = the bed's ConfigFile).
	ConfigFile string
	// Addr is the listen address ("" = a free loopback port).
	Addr string
	// Wrap, when set, wraps the server's HTTP handler.
	Wrap func(http.Handler) http.Handler
}

// StartServer wires a garrison server in-process on the data directory <dir>/data,
// logging to <dir>/server.log, serves it and sets URL. The server runs until Close.
func (b *Bed) StartServer(ctx context.Context, o ServerOptions) error {
	cfgFile := o.ConfigFile
	if cfgFile == "" {
		cfgFile = b.ConfigFile()
	}
	logFile, err := os.OpenFile(b.Path("server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	s, err := startInProcess(ctx, b.Path("data"), cfgFile, o, logFile)
	if err != nil {
		logFile.Close()
		return fmt.Errorf("starting the server: %w", err)
	}
	b.srv, b.URL = s, s.url
	return nil
}

// inProcessServer is a garrison server running in-process.
type inProcessServer struct {
	url    string
	srv    *server.Server
	cancel context.CancelFunc
	done   chan error
	logs   []io.Closer // closed by stop
}

// startInProcess wires a server on dataDir with the config file cfgFile, logging to logW
// (closed by stop), and serves it on o.Addr. The server keeps running when ctx ends; stop
// ends it.
func startInProcess(ctx context.Context, dataDir, cfgFile string, o ServerOptions, logW io.WriteCloser) (*inProcessServer, error) {
	cfg, err := server.LoadConfig(server.Flags{DataDir: dataDir, ConfigFile: cfgFile})
	if err != nil {
		return nil, err
	}
	logger, closer, err := server.NewLogger(cfg.Logging, logW)
	if err != nil {
		return nil, err
	}
	srv, err := server.New(ctx, cfg, logger)
	if err != nil {
		closer.Close()
		return nil, err
	}
	if o.Wrap != nil {
		srv.Wrap(o.Wrap)
	}
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		closer.Close()
		srv.Close()
		return nil, fmt.Errorf("listening: %w", err)
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &inProcessServer{url: "http://" + ln.Addr().String(), srv: srv, cancel: cancel, done: make(chan error, 1),
		logs: []io.Closer{closer, logW}}
	logger.Info("garrison test server listening", "addr", ln.Addr().String(), "data_dir", dataDir)
	go func() { s.done <- srv.Serve(sctx, ln) }()
	return s, nil
}

// stop shuts the server down, waits for its background work and closes the store.
func (s *inProcessServer) stop() error {
	s.cancel()
	err := <-s.done
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	errs := []error{err, s.srv.Close()}
	for _, c := range s.logs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// startPath matches the simulator route a runner calls when it starts a job.
var startPath = regexp.MustCompile(`^/_sim/jobs/([0-9]+)/start$`)

// StartRecorder serves the forge simulator and notes, to the millisecond, when each job
// was reported started (the simulator keeps whole seconds only).
type StartRecorder struct {
	next http.Handler

	mu      sync.Mutex // guards started
	started map[int64]time.Time
}

// NewStartRecorder records the job starts that next serves.
func NewStartRecorder(next http.Handler) *StartRecorder {
	return &StartRecorder{next: next, started: map[int64]time.Time{}}
}

func (r *StartRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
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

// StartedAt returns when job id was reported started, if it was.
func (r *StartRecorder) StartedAt(id int64) (time.Time, bool) {
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

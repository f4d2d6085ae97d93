package forgesim

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Options configure a Sim. The zero value is usable: GitHub rate limits of 5,000 calls per
// hour and credential, reliable webhook delivery, seed 1.
type Options struct {
	Logger    *slog.Logger
	RateLimit RateLimitOptions
	Delivery  DeliveryFaults
	// DeliveryTimeout bounds one webhook POST (default 10 s); a timeout is a failed delivery.
	DeliveryTimeout time.Duration
	// Seed seeds the random decisions of the delivery faults (default 1).
	Seed uint64
	// RunnerTarball is served for every runner download (default: a small placeholder).
	RunnerTarball []byte
	// RunnerVersion is the version in download file names and connected runners.
	RunnerVersion string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// ScaleSets tune the Actions service of runner scale sets.
	ScaleSets ScaleSetOptions
}

// Sim is a stateful GitHub and Gitea simulator. It is an http.Handler; all methods are
// safe for concurrent use.
type Sim struct {
	log    *slog.Logger
	now    func() time.Time
	opts   Options
	mux    *http.ServeMux
	out    *sender
	client *http.Client

	mu sync.Mutex // guards everything below
	st state
	// rng drives the delivery faults; guarded by mu so decisions follow event order.
	rng      *rand.Rand
	faults   DeliveryFaults
	limits   RateLimitOptions
	apiFault APIFault // SetAPIFault
	tarball  []byte
	binary   []byte // Gitea runner downloads; nil: the tarball
	// downloadsOff makes /_sim/downloads/ answer 503 (SetDownloadsBlocked).
	downloadsOff bool
	// releases are the Gitea runner releases served; nil: DefaultGiteaReleases.
	releases []GiteaRelease
	baseURL  string
	srv      *http.Server

	closing   chan struct{} // closed by Close: held long polls answer at once
	closeOnce sync.Once
}

// New returns a simulator with no repositories, organizations or tokens.
func New(opts Options) *Sim {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.DeliveryTimeout == 0 {
		opts.DeliveryTimeout = 10 * time.Second
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.RunnerVersion == "" {
		opts.RunnerVersion = "2.330.0"
	}
	if opts.RunnerTarball == nil {
		opts.RunnerTarball = []byte("forgesim stand-in runner placeholder\n")
	}
	s := &Sim{
		log:     opts.Logger,
		now:     opts.Now,
		opts:    opts,
		mux:     http.NewServeMux(),
		client:  &http.Client{Timeout: opts.DeliveryTimeout},
		st:      newState(),
		rng:     rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		faults:  opts.Delivery,
		limits:  opts.RateLimit.withDefaults(),
		tarball: opts.RunnerTarball,
		closing: make(chan struct{}),
	}
	s.st.actions.opts = opts.ScaleSets.withDefaults()
	s.out = newSender(s)
	s.routes()
	return s
}

// ServeHTTP serves the GitHub, GHES (/api/v3), Gitea (/api/v1) and /_sim/ routes.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// Start listens on addr (for example "127.0.0.1:0") and serves in the background. It
// returns the base URL, "http://HOST:PORT", also used in payload URLs.
func (s *Sim) Start(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String()
	s.mu.Lock()
	s.srv, s.baseURL = srv, url
	s.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("forgesim: serve", "err", err)
		}
	}()
	return url, nil
}

// SetURL sets the base URL used in payloads when the Sim is served by someone else (for
// example httptest.NewServer(sim)).
func (s *Sim) SetURL(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.baseURL = strings.TrimRight(url, "/")
}

// URL returns the base URL ("" before Start or SetURL).
func (s *Sim) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.baseURL
}

// Close stops the server (if started) and the webhook sender. Deliveries still queued are
// dropped; held message long polls answer 202 at once (call Close before closing an
// httptest.Server that serves the Sim).
func (s *Sim) Close() error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.out.close()
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// SetDownloadsBlocked makes the runner downloads (/_sim/downloads/) answer 503 while
// blocked is true, as for a runner that cannot reach the forge's download host.
func (s *Sim) SetDownloadsBlocked(blocked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.downloadsOff = blocked
}

// SetRunnerTarball replaces the content served for runner downloads.
func (s *Sim) SetRunnerTarball(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tarball = append([]byte(nil), b...)
}

func (s *Sim) serveTarball(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	off := s.downloadsOff
	s.mu.Unlock()
	if off {
		http.Error(w, "downloads are blocked", http.StatusServiceUnavailable)
		return
	}
	b, ct := s.download(r.PathValue("file"))
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(b)
}

// readBody reads a request body of at most 1 MiB.
func readBody(r *http.Request) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r.Body, 1<<20))
}

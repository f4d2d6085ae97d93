// Package httpapi serves garrison's HTTP surface: the GARM-compatible REST API v1 (see
// shared/spec/rest-api.md), first-run and login, health and metrics, and the mount points
// of the webhook receiver and the instance metadata/callback API.
package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/garrison-ci/garrison/internal/auth"
)

// Server is the HTTP handler of garrison.
type Server struct {
	opts    Options
	store   Store
	log     *slog.Logger
	tokens  *auth.Tokens
	limiter *auth.Limiter // nil when disabled
	checker *auth.PasswordChecker
	metrics *httpMetrics // nil when no Registerer
	now     func() time.Time

	initialized atomic.Bool // an admin exists; once true it stays true
	providers   map[string]Provider

	// streamsDone is closed by CloseStreams: open websocket sessions end.
	streamsDone chan struct{}
	closeOnce   sync.Once

	root    http.Handler
	api     *http.ServeMux // admin routes: init -> urls -> auth -> admin
	ctrlAPI *http.ServeMux // /controller routes: init -> auth -> admin
}

// New returns a Server for opts.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("httpapi: no store")
	}
	s := &Server{opts: opts, store: opts.Store, log: opts.Logger, now: opts.Now, streamsDone: make(chan struct{})}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	tokens, err := auth.NewTokens(opts.JWTSecret, opts.TokenTTL, s.now)
	if err != nil {
		return nil, err
	}
	s.tokens = tokens
	if !opts.DisableLoginLimit {
		s.limiter = auth.NewLimiter(opts.LoginLimit, s.now)
	}
	s.checker = auth.NewPasswordChecker(opts.MaxPasswordChecks)
	s.providers = make(map[string]Provider, len(opts.Providers))
	for _, p := range opts.Providers {
		s.providers[p.Name()] = p
	}
	if opts.Registerer != nil {
		if s.metrics, err = newHTTPMetrics(opts.Registerer); err != nil {
			return nil, err
		}
		if err := s.registerDropped(opts.Registerer); err != nil {
			return nil, err
		}
	}
	s.routes()
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.root.ServeHTTP(w, r)
}

// CloseStreams ends every open websocket session with a normal closure (1000), as on
// server shutdown; http.Server.Shutdown does not reach hijacked connections.
func (s *Server) CloseStreams() { s.closeOnce.Do(func() { close(s.streamsDone) }) }

// Tokens returns the server's token minter, for the instance API of a later issue.
func (s *Server) Tokens() *auth.Tokens { return s.tokens }

const apiPrefix = "/api/v1"

// routes builds the handler tree. The outer layers (metrics, recovery, CORS) see every
// request; dispatch then picks the route group, whose middleware chain runs before the
// group's mux routes it.
func (s *Server) routes() {
	s.api = http.NewServeMux()
	s.ctrlAPI = http.NewServeMux()
	s.registerAPI()
	var h http.Handler = http.HandlerFunc(s.dispatch)
	h = s.cors(h)
	h = s.recoverPanics(h)
	h = s.instrument(h)
	h = s.accessLog(h)
	s.root = h
}

// dispatch sends a request to its route group (rest-api.md §1.3).
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/healthz" || p == "/healthz/":
		s.labelRoute(r, "/healthz")
		s.handleHealthz(w, r)
	case p == "/metrics" || p == "/metrics/":
		s.labelRoute(r, "/metrics")
		s.handle(s.handleMetrics)(w, r)
	case p == "/webhooks" || strings.HasPrefix(p, "/webhooks/"):
		s.labelRoute(r, "/webhooks")
		s.mount(s.opts.Webhooks, w, r)
	case p == "/agent" || p == "/agent/":
		s.labelRoute(r, "GET /agent")
		s.onlyMethod(http.MethodGet, s.handle(s.handleAgentConn))(w, r)
	case hasPathPrefix(p, "/debug/pprof"):
		s.labelRoute(r, "/debug/pprof")
		s.requireInit(s.requireAdmin(func(w http.ResponseWriter, r *http.Request) {
			s.mount(s.opts.Debug, w, r)
		}))(w, r)
	case s.opts.RunnerTools != nil && hasPathPrefix(p, apiPrefix+"/metadata/runner-tools"):
		s.labelRoute(r, apiPrefix+"/metadata/runner-tools")
		s.opts.RunnerTools.ServeHTTP(w, r)
	case hasPathPrefix(p, apiPrefix+"/metadata") || hasPathPrefix(p, apiPrefix+"/callbacks"):
		s.labelRoute(r, strings.SplitN(p, "/", 5)[3])
		s.mount(s.opts.Instances, w, r)
	case hasPathPrefix(p, apiPrefix):
		s.dispatchAPI(w, trimSlash(r))
	case s.opts.UI != nil && isUIPath(p):
		s.labelRoute(r, uiPrefix)
		s.opts.UI.ServeHTTP(w, r)
	default:
		s.labelRoute(r, "unmatched")
		writeNotFound(w)
	}
}

// dispatchAPI routes /api/v1 paths (trailing slash already trimmed).
func (s *Server) dispatchAPI(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case apiPrefix + "/first-run":
		s.labelRoute(r, "POST "+apiPrefix+"/first-run")
		s.onlyMethod(http.MethodPost, s.handle(s.handleFirstRun))(w, r)
	case apiPrefix + "/auth/login":
		s.labelRoute(r, "POST "+apiPrefix+"/auth/login")
		s.requireInit(s.onlyMethod(http.MethodPost, s.handle(s.handleLogin)))(w, r)
	case apiPrefix + "/controller", apiPrefix + "/controller/tools/sync":
		s.labelPattern(s.ctrlAPI, r)
		s.requireInit(s.requireAdmin(s.ctrlAPI.ServeHTTP))(w, r)
	default:
		s.labelPattern(s.api, r)
		s.requireInit(s.requireURLs(s.requireAdmin(s.api.ServeHTTP)))(w, r)
	}
}

// labelPattern labels r with the pattern mux will route it to, before any middleware.
func (s *Server) labelPattern(mux *http.ServeMux, r *http.Request) {
	_, pattern := mux.Handler(r)
	if pattern == "" || pattern == "/" {
		pattern = "unmatched"
	}
	s.labelRoute(r, pattern)
}

// mount serves r with h, or answers 404 when the seam is not wired.
func (s *Server) mount(h http.Handler, w http.ResponseWriter, r *http.Request) {
	if h == nil {
		writeNotFound(w)
		return
	}
	h.ServeHTTP(w, r)
}

// onlyMethod answers 404 to methods other than m, as unknown routes do.
func (s *Server) onlyMethod(m string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m {
			writeNotFound(w)
			return
		}
		h(w, r)
	}
}

// hasPathPrefix reports whether p is prefix or below it.
func hasPathPrefix(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// trimSlash returns r with one trailing "/" removed from its path (G-1).
func trimSlash(r *http.Request) *http.Request {
	p := r.URL.Path
	if len(p) <= len(apiPrefix)+1 || !strings.HasSuffix(p, "/") {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path = strings.TrimSuffix(p, "/")
	u.RawPath = ""
	r2.URL = &u
	return r2
}

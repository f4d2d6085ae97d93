package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
)

type ctxKey int

const (
	routeKey ctxKey = iota // *routeLabel
	userKey                // garrison.User of an authenticated request
)

// routeLabel carries the route pattern from routing back out to the metrics layer.
type routeLabel struct{ pattern string }

// labelRoute records pattern as the metrics label of r's route.
func (s *Server) labelRoute(r *http.Request, pattern string) {
	if l, ok := r.Context().Value(routeKey).(*routeLabel); ok {
		l.pattern = pattern
	}
}

// recoverPanics turns a handler panic into a logged 500.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "panic in HTTP handler", "method", r.Method, "path", r.URL.Path, "panic", v)
			writeJSON(w, http.StatusInternalServerError, errorBody{Error: "Server error"})
		}()
		next.ServeHTTP(w, r)
	})
}

// CORS allowances (G-8).
const (
	corsMethods = "GET, HEAD, POST, PUT, OPTIONS, DELETE"
	corsHeaders = "X-Requested-With, Content-Type, Authorization"
)

// cors adds CORS headers for allowed origins and answers OPTIONS on every route except
// the webhook receiver with an empty 200.
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && s.originAllowed(origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
		}
		if r.Method == http.MethodOptions && !strings.HasPrefix(r.URL.Path, "/webhooks") {
			s.labelRoute(r, "OPTIONS")
			w.Header().Set("Allow", corsMethods)
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) originAllowed(origin string) bool {
	return slices.ContainsFunc(s.opts.CORSOrigins, func(o string) bool {
		return o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin)
	})
}

// requireInit answers 409 init_required until the admin user exists.
func (s *Server) requireInit(next http.HandlerFunc) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		ok, err := s.isInitialized(r.Context())
		if err != nil {
			return err
		}
		if !ok {
			writeJSON(w, http.StatusConflict, errorBody{Error: "init_required", Details: "Missing superuser"})
			return nil
		}
		next(w, r)
		return nil
	})
}

func (s *Server) isInitialized(ctx context.Context) (bool, error) {
	if s.initialized.Load() {
		return true, nil
	}
	ok, err := s.store.HasAdmin(ctx)
	if err != nil {
		return false, err
	}
	if ok {
		s.initialized.Store(true)
	}
	return ok, nil
}

// requireURLs answers 409 urls_required until the controller's metadata, callback and
// (effective) agent URLs are set. It runs before authentication (§1.3).
func (s *Server) requireURLs(next http.HandlerFunc) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.store.Controller(r.Context())
		if err != nil {
			return err
		}
		if !c.URLsConfigured() {
			writeJSON(w, http.StatusConflict, errorBody{Error: "urls_required",
				Details: "Missing required URLs. Make sure you update the metadata and callback URLs"})
			return nil
		}
		next(w, r)
		return nil
	})
}

// requireAdmin authenticates the request (401 Authentication failed) and then requires
// an admin (401 Not Authorized).
func (s *Server) requireAdmin(next http.HandlerFunc) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		u, err := s.authenticate(r)
		var internal *internalError
		if errors.As(err, &internal) {
			return internal.err
		}
		if err != nil {
			s.log.DebugContext(r.Context(), "authentication failed", "path", r.URL.Path, "err", err)
			writeAuthFailed(w)
			return nil
		}
		if !u.IsAdmin {
			writeJSON(w, http.StatusUnauthorized, errorBody{Error: "Not Authorized"})
			return nil
		}
		next(w, r.WithContext(context.WithValue(r.Context(), userKey, u)))
		return nil
	})
}

// internalError marks a failure that is the server's, not the client's.
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

// errNoToken is returned when a request carries no token at all.
var errNoToken = errors.New("no token")

// bearerToken extracts the token from "Authorization: <scheme> <token>" or, when that
// header is absent, from the garm_token cookie. A browser attaches the cookie to requests
// other sites make it send, so the cookie alone authenticates a request that changes
// something (any method but GET, HEAD and OPTIONS) only when the browser says it comes from
// garrison's own origin (sameOrigin): no cross-site request forgery. GARM's web UI and
// garrison's send the Authorization header with every such request anyway; the cookie
// alone is what websockets (GET) rely on.
func bearerToken(r *http.Request) (string, error) {
	if h, ok := r.Header["Authorization"]; ok {
		parts := strings.Split(strings.Join(h, ""), " ")
		if len(parts) != 2 || parts[1] == "" {
			return "", errNoToken
		}
		return parts[1], nil
	}
	c, err := r.Cookie("garm_token")
	if err != nil || c.Value == "" {
		return "", errNoToken
	}
	if !safeMethod(r.Method) && !sameOrigin(r) {
		return "", errNoToken
	}
	return c.Value, nil
}

// safeMethod reports whether a method only reads.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOrigin reports whether the browser says the request comes from the page's own
// origin: Sec-Fetch-Site "same-origin", or else an Origin header naming this host. A
// request with neither (not a browser's) is not taken as same-origin.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return false
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// authenticate applies the token acceptance rules of §1.2 and returns the user.
func (s *Server) authenticate(r *http.Request) (garrison.User, error) {
	tok, err := bearerToken(r)
	if err != nil {
		return garrison.User{}, err
	}
	claims, err := s.tokens.VerifyAdmin(tok)
	if err != nil {
		return garrison.User{}, err
	}
	if claims.User == "" {
		return garrison.User{}, auth.ErrUserMismatch
	}
	u, err := s.store.User(r.Context(), claims.User)
	if err != nil {
		if errors.Is(err, garrison.ErrNotFound) {
			return garrison.User{}, err
		}
		return garrison.User{}, &internalError{err}
	}
	return u, auth.CheckUser(claims, u)
}

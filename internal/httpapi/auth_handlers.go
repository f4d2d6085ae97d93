package httpapi

import (
	"errors"
	"net"
	"net/http"
	"strconv"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/auth"
)

var errAlreadyInitialized = garrison.Errorf(garrison.EConflict, "already initialized")

// handleFirstRun creates the admin user (POST /first-run).
func (s *Server) handleFirstRun(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if ok, err := s.isInitialized(ctx); err != nil || ok {
		s.writeErr(w, r, cmpOr(err, errAlreadyInitialized))
		return
	}
	var p apiv1.NewUserParams
	if err := decode(w, r, &p); err != nil {
		s.writeErr(w, r, err)
		return
	}
	if err := auth.ValidateNewUser(p.Username, p.Email, p.FullName, p.Password); err != nil {
		s.writeErr(w, r, invalid("%s", err.Error()))
		return
	}
	hash, err := auth.HashPassword(p.Password)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	u, err := s.store.CreateAdmin(ctx, garrison.User{Username: p.Username, Email: p.Email,
		FullName: p.FullName, PasswordHash: hash, Enabled: true, IsAdmin: true})
	if errors.Is(err, garrison.ErrConflict) {
		err = errAlreadyInitialized
	}
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	s.initialized.Store(true)
	s.log.InfoContext(ctx, "admin user created", "username", u.Username)
	writeOK(w, userView(u))
}

// handleLogin exchanges a username and password for a token (POST /auth/login). Any
// Authorization header is ignored. Failures are 401 without a reason; clients that fail
// too often are held back with 429.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	client := clientIP(r)
	if s.limiter != nil {
		if ok, wait := s.limiter.Allow(client); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+0.999)))
			writeJSON(w, http.StatusTooManyRequests, errorBody{Error: "Too Many Requests",
				Details: "too many failed login attempts; try again later"})
			return
		}
	}
	var p apiv1.PasswordLoginParams
	if err := decode(w, r, &p); err != nil {
		s.writeErr(w, r, err)
		return
	}
	u, err := s.checkLogin(r, p)
	if err != nil {
		if s.limiter != nil {
			s.limiter.Fail(client)
		}
		if garrison.CodeOf(err) != garrison.EUnauthorized {
			s.writeErr(w, r, err)
			return
		}
		s.log.InfoContext(r.Context(), "login failed", "client", client)
		writeJSON(w, http.StatusUnauthorized, errorBody{Error: "Not Authorized"})
		return
	}
	if s.limiter != nil {
		s.limiter.Succeed(client)
	}
	tok, err := s.tokens.MintAdmin(u)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	writeOK(w, apiv1.JWTResponse{Token: tok})
}

// checkLogin returns the user the credentials identify, ErrUnauthorized, or a server error.
func (s *Server) checkLogin(r *http.Request, p apiv1.PasswordLoginParams) (garrison.User, error) {
	if p.Username == "" || p.Password == "" {
		return garrison.User{}, garrison.ErrUnauthorized
	}
	u, err := s.store.UserByName(r.Context(), p.Username)
	if err != nil && !errors.Is(err, garrison.ErrNotFound) {
		return u, err
	}
	if !auth.CheckPassword(u.PasswordHash, p.Password) || !u.Enabled {
		return garrison.User{}, garrison.ErrUnauthorized
	}
	return u, nil
}

// clientIP is the remote IP of r (proxy headers are not trusted).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// handleMetricsToken mints a metrics-only token (GET /metrics-token).
func (s *Server) handleMetricsToken(w http.ResponseWriter, r *http.Request) {
	tok, err := s.tokens.MintMetrics()
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	writeOK(w, apiv1.JWTResponse{Token: tok})
}

// cmpOr returns the first non-nil error.
func cmpOr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

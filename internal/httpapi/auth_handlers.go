package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/auth"
)

var errAlreadyInitialized = garrison.Errorf(garrison.EConflict, "already initialized")

// handleFirstRun creates the admin user (POST /first-run).
func (s *Server) handleFirstRun(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if ok, err := s.isInitialized(ctx); err != nil || ok {
		return cmpOr(err, errAlreadyInitialized)
	}
	var p apiv1.NewUserParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	if err := auth.ValidateNewUser(p.Username, p.Email, p.FullName, p.Password); err != nil {
		return invalid("%s", err.Error())
	}
	hash, err := auth.HashPassword(p.Password)
	if err != nil {
		return err
	}
	u, err := s.store.CreateAdmin(ctx, garrison.User{Username: p.Username, Email: p.Email,
		FullName: p.FullName, PasswordHash: hash, Enabled: true, IsAdmin: true})
	if errors.Is(err, garrison.ErrConflict) {
		err = errAlreadyInitialized
	}
	if err != nil {
		return err
	}
	s.initialized.Store(true)
	s.log.InfoContext(ctx, "admin user created", "username", u.Username)
	writeOK(w, userView(u))
	return nil
}

// loginWait bounds how long a login waits for a free password check (see
// Options.MaxPasswordChecks) before it is answered 503.
const loginWait = 10 * time.Second

// errLoginBusy is the cause of a login that found no free password check within loginWait.
var errLoginBusy = errors.New("httpapi: every password check stayed busy")

// handleLogin exchanges a username and password for a token (POST /auth/login). Any
// Authorization header is ignored. Failures are 401 without a reason. Each attempt counts
// against the client's limit when it starts, so parallel attempts cannot exceed it;
// clients over the limit are held back with 429.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	client := s.clientAddr(r)
	if !s.startLoginAttempt(w, limitKey(client)) {
		return nil // answered 429
	}
	var p apiv1.PasswordLoginParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	u, err := s.checkLogin(r, p)
	if err != nil {
		return s.loginFailed(w, r, client, err)
	}
	if s.limiter != nil {
		s.limiter.Succeed(limitKey(client))
	}
	tok, err := s.tokens.MintAdmin(u)
	if err != nil {
		return err
	}
	writeOK(w, apiv1.JWTResponse{Token: tok})
	return nil
}

// limitKey is the login limiter's key for a client address: the address itself for
// IPv4, its /64 network for IPv6, where one subscriber commonly holds a whole /64.
func limitKey(client string) string {
	a, err := netip.ParseAddr(client)
	if err != nil || !a.Is6() {
		return client
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// startLoginAttempt counts an attempt under the limiter key, or answers 429 and reports
// false when the key has none left.
func (s *Server) startLoginAttempt(w http.ResponseWriter, key string) bool {
	if s.limiter == nil {
		return true
	}
	ok, wait := s.limiter.Take(key)
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+0.999)))
		writeJSON(w, http.StatusTooManyRequests, errorBody{Error: "Too Many Requests",
			Details: "too many failed login attempts; try again later"})
	}
	return ok
}

// loginFailed answers a login that checkLogin refused, or returns the failure to answer.
// An attempt that was never decided (no free password check, a store failure) is given
// back to the client.
func (s *Server) loginFailed(w http.ResponseWriter, r *http.Request, client string, err error) error {
	if garrison.CodeOf(err) == garrison.EUnauthorized {
		s.log.InfoContext(r.Context(), "login failed", "client", client)
		writeJSON(w, http.StatusUnauthorized, errorBody{Error: "Not Authorized"})
		return nil
	}
	if s.limiter != nil {
		s.limiter.Refund(limitKey(client))
	}
	if r.Context().Err() != nil {
		return nil // the client left while its login waited
	}
	if errors.Is(err, errLoginBusy) {
		s.log.WarnContext(r.Context(), "login refused: too many password checks waiting", "client", client)
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "Service Unavailable",
			Details: "too many logins in progress; try again shortly"})
		return nil
	}
	return err
}

// checkLogin returns the user the credentials identify, ErrUnauthorized, or another error
// when the password could not be checked.
func (s *Server) checkLogin(r *http.Request, p apiv1.PasswordLoginParams) (garrison.User, error) {
	if p.Username == "" || p.Password == "" {
		return garrison.User{}, garrison.ErrUnauthorized
	}
	u, err := s.store.UserByName(r.Context(), p.Username)
	if err != nil && !errors.Is(err, garrison.ErrNotFound) {
		return u, err
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), loginWait, errLoginBusy)
	defer cancel()
	ok, err := s.checker.Check(ctx, u.PasswordHash, p.Password)
	if err != nil {
		return garrison.User{}, err
	}
	if !ok || !u.Enabled {
		return garrison.User{}, garrison.ErrUnauthorized
	}
	return u, nil
}

// handleMetricsToken mints a metrics-only token (GET /metrics-token), revoked by the next
// password reset of the admin who asked for it.
func (s *Server) handleMetricsToken(w http.ResponseWriter, r *http.Request) error {
	u, ok := r.Context().Value(userKey).(garrison.User)
	if !ok {
		return errors.New("httpapi: metrics token requested without an authenticated user")
	}
	tok, err := s.tokens.MintMetrics(u.Generation)
	if err != nil {
		return err
	}
	writeOK(w, apiv1.JWTResponse{Token: tok})
	return nil
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

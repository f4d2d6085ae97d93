package forgesim

import (
	"net/http"
	"strconv"
	"time"
)

// RateLimitOptions shape the GitHub API budgets. Budgets are kept per credential and
// resource; each window starts with the first call after the previous one ended.
type RateLimitOptions struct {
	// Disabled turns rate limiting off, as on GHES by default: no x-ratelimit headers and
	// GET /rate_limit answers 404.
	Disabled bool
	// Limit is the number of calls per window (default 5,000).
	Limit int
	// Window is the budget period (default 1 h). Tests use a short one.
	Window time.Duration
	// Status answers calls over budget: 403 (default) or 429.
	Status int
	// Resources maps a route, e.g. "POST /repos/{owner}/{repo}/actions/runners/generate-jitconfig",
	// to its x-ratelimit-resource; unlisted routes count as "core".
	Resources map[string]string
}

func (o RateLimitOptions) withDefaults() RateLimitOptions {
	if o.Limit <= 0 {
		o.Limit = 5000
	}
	if o.Window <= 0 {
		o.Window = time.Hour
	}
	if o.Status == 0 {
		o.Status = http.StatusForbidden
	}
	return o
}

// Budget is one credential's budget for one resource.
type Budget struct {
	Limit     int
	Used      int
	Remaining int
	Reset     time.Time
}

type budgetKey struct{ cred, resource string }

type budget struct {
	used  int
	reset time.Time
}

// secondaryFault makes the next remaining calls fail with a secondary rate limit.
type secondaryFault struct {
	remaining  int
	retryAfter time.Duration
	status     int
}

// staleFault makes the next remaining calls answer a spent budget whose reset has
// passed already: a forge whose limit has not caught up with its own reset time.
type staleFault struct {
	remaining int
	status    int
}

// SetRateLimit replaces the rate-limit options and forgets all budgets.
func (s *Sim) SetRateLimit(o RateLimitOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = o.withDefaults()
	s.st.budgets = map[budgetKey]*budget{}
}

// TriggerSecondaryLimit makes the next n GitHub calls (any credential) fail with a
// secondary rate limit: status 403 (or 429 when status is 429), the documented body and
// Retry-After in whole seconds (at least 1).
func (s *Sim) TriggerSecondaryLimit(n int, retryAfter time.Duration, status int) {
	if status == 0 {
		status = http.StatusForbidden
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.secondary = secondaryFault{remaining: n, retryAfter: retryAfter, status: status}
}

// TriggerStaleRateLimit makes the next n GitHub calls (any credential) answer status 403
// (or 429) as a spent primary budget, remaining 0, whose X-RateLimit-Reset is one second
// in the past: the reset time passed, yet the forge still refuses. No Retry-After.
func (s *Sim) TriggerStaleRateLimit(n, status int) {
	if status == 0 {
		status = http.StatusForbidden
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.stale = staleFault{remaining: n, status: status}
}

// Budget returns a credential's current budget for a resource ("core" for most routes).
func (s *Sim) Budget(cred, resource string) Budget {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.budgetLocked(cred, resource)
	return Budget{Limit: s.limits.Limit, Used: b.used, Remaining: max(s.limits.Limit-b.used, 0), Reset: b.reset}
}

func (s *Sim) budgetLocked(cred, resource string) *budget {
	k := budgetKey{cred, resource}
	b := s.st.budgets[k]
	now := s.now()
	if b == nil || !now.Before(b.reset) {
		b = &budget{reset: now.Add(s.limits.Window)}
		s.st.budgets[k] = b
	}
	return b
}

func (s *Sim) resourceOf(route string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.limits.Resources[route]; r != "" {
		return r
	}
	return "core"
}

// charge takes one call from the budget, or answers the limit. It sets the rate headers.
func (s *Sim) charge(h http.Header, cred, resource string) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := &s.st.secondary; f.remaining > 0 {
		f.remaining--
		secs := max(int((f.retryAfter+time.Second-1)/time.Second), 1)
		h.Set("Retry-After", strconv.Itoa(secs))
		rp := reply{status: f.status, body: map[string]string{
			"message":           "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
		}}
		return &rp
	}
	if f := &s.st.stale; f.remaining > 0 {
		f.remaining--
		h.Set("X-RateLimit-Limit", strconv.Itoa(s.limits.Limit))
		h.Set("X-RateLimit-Used", strconv.Itoa(s.limits.Limit))
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(s.now().Add(-time.Second).Unix(), 10))
		h.Set("X-RateLimit-Resource", resource)
		rp := ghError(f.status, "API rate limit exceeded for "+cred+".")
		rp.body.(map[string]any)["documentation_url"] = "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"
		return &rp
	}
	if s.limits.Disabled {
		return nil
	}
	b := s.budgetLocked(cred, resource)
	if b.used >= s.limits.Limit {
		s.rateHeadersLocked(h, b, resource)
		rp := ghError(s.limits.Status, "API rate limit exceeded for "+cred+".")
		rp.body.(map[string]any)["documentation_url"] = "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"
		return &rp
	}
	b.used++
	s.rateHeadersLocked(h, b, resource)
	return nil
}

// refund gives back a call answered 304 Not Modified, which GitHub does not count.
func (s *Sim) refund(h http.Header, cred, resource string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limits.Disabled {
		return
	}
	b := s.budgetLocked(cred, resource)
	b.used = max(b.used-1, 0)
	s.rateHeadersLocked(h, b, resource)
}

func (s *Sim) rateHeadersLocked(h http.Header, b *budget, resource string) {
	reset := b.reset.Unix()
	if b.reset.Nanosecond() > 0 {
		reset++ // round up: never tell a client to come back too early
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.limits.Limit))
	h.Set("X-RateLimit-Used", strconv.Itoa(b.used))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(s.limits.Limit-b.used, 0)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	h.Set("X-RateLimit-Resource", resource)
}

// rateLimitRoute serves GET /rate_limit, which is not counted.
func (s *Sim) rateLimitRoute(_ *http.Request, p principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limits.Disabled {
		return ghError(http.StatusNotFound, "Rate limiting is not enabled.")
	}
	b := s.budgetLocked(p.cred, "core")
	core := map[string]int64{
		"limit": int64(s.limits.Limit), "used": int64(b.used),
		"remaining": int64(max(s.limits.Limit-b.used, 0)), "reset": b.reset.Unix(),
	}
	return ok(http.StatusOK, map[string]any{"resources": map[string]any{"core": core}, "rate": core})
}

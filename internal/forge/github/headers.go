package github

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// maxForgeWait bounds any wait a forge asks for (Retry-After, a reset time): a header
// asking for more is taken as this much, so a garbled answer cannot silence a credential
// for days, nor overflow a time.Duration.
const maxForgeWait = time.Hour

// parseRateHeaders reads the x-ratelimit-* headers of an answer: the budget and its
// resource. ok is false when the answer carries no budget (no resource, or a limit that
// is not a non-negative number); the other fields default to 0 when unreadable.
func parseRateHeaders(h http.Header) (rl garrison.RateLimit, resource string, ok bool) {
	resource = strings.TrimSpace(h.Get("X-RateLimit-Resource"))
	limit, err := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Limit")))
	if resource == "" || err != nil || limit < 0 {
		return garrison.RateLimit{}, "", false
	}
	rl.Limit = limit
	rl.Remaining = nonNegative(h.Get("X-RateLimit-Remaining"))
	rl.Used = nonNegative(h.Get("X-RateLimit-Used"))
	rl.Reset, _ = strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64)
	if rl.Reset < 0 {
		rl.Reset = 0
	}
	return rl, resource, true
}

func nonNegative(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP-date (RFC 9110),
// as a wait from now, at most maxForgeWait. A date in the past is a zero wait. ok is
// false when the header is absent or unreadable.
func parseRetryAfter(s string, now time.Time) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(maxForgeWait/time.Second) {
			return maxForgeWait, true
		}
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(s)
	if err != nil {
		return 0, false
	}
	return min(max(at.Sub(now), 0), maxForgeWait), true
}

// limitKind says what a 403 or 429 answer is.
type limitKind int

const (
	notLimited     limitKind = iota // a refusal of the credentials or the request
	retryAfter                      // any limit with a Retry-After: wait what it says
	primaryLimit                    // the budget is spent until X-RateLimit-Reset
	secondaryLimit                  // a secondary limit without Retry-After
)

// classifyLimit says whether a 403/429 answer is a rate limit, and how long the forge
// asks to wait: Retry-After, else the time to X-RateLimit-Reset when the budget is
// spent (≤ 0 when that reset has passed already: the forge has not caught up), else
// nothing for a secondary limit, which GitHub names only in the body.
func classifyLimit(h http.Header, body []byte, now time.Time) (limitKind, time.Duration) {
	if d, ok := parseRetryAfter(h.Get("Retry-After"), now); ok {
		return retryAfter, d
	}
	if strings.TrimSpace(h.Get("X-RateLimit-Remaining")) == "0" {
		reset, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64)
		if err != nil || reset <= 0 {
			return primaryLimit, 0
		}
		return primaryLimit, min(time.Unix(reset, 0).Sub(now), maxForgeWait)
	}
	var e struct {
		Message string `json:"message"`
		DocURL  string `json:"documentation_url"`
	}
	_ = json.Unmarshal(body, &e)
	if strings.Contains(e.DocURL, "secondary-rate-limits") || strings.Contains(e.DocURL, "abuse-rate-limits") ||
		strings.Contains(strings.ToLower(e.Message), "secondary rate limit") {
		return secondaryLimit, 0
	}
	return notLimited, 0
}

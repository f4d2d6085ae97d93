package scaleset

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// Sentinels for the protocol's own failure cases. Each error that matches one also
// matches a garrison error (see the package documentation).
var (
	// ErrSessionConflict: the scale set already has an open message session (409 on create).
	ErrSessionConflict = errors.New("the scale set has another open message session")
	// ErrTokenExpired: the message queue token was refused (401); refresh the session.
	ErrTokenExpired = errors.New("message queue token expired")
	// ErrRunnerExists: a runner of that name exists (AgentExistsException).
	ErrRunnerExists = errors.New("a runner of that name exists")
	// ErrJobStillRunning: the runner is busy with a job (JobStillRunningException).
	ErrJobStillRunning = errors.New("the runner is still running a job")
)

// APIError is an unsuccessful answer of the Actions service or the GitHub API.
type APIError struct {
	Method     string
	URL        string // without its query
	Status     int
	TypeName   string // the service's exception name, e.g. "AgentNotFoundException"
	Message    string
	ActivityID string
	RetryAfter time.Duration // from a Retry-After header, 0 when absent
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.URL, e.Status, http.StatusText(e.Status))
	if e.TypeName != "" {
		fmt.Fprintf(&b, ": %s", e.TypeName)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.ActivityID != "" {
		fmt.Fprintf(&b, " (activity %s)", e.ActivityID)
	}
	return b.String()
}

// exceptionBody is the service's error shape.
type exceptionBody struct {
	TypeName string `json:"typeName"`
	Message  string `json:"message"`
}

// newAPIError reads an unsuccessful response (body already read, BOM trimmed).
func newAPIError(req *http.Request, resp *http.Response, body []byte) *APIError {
	u := *req.URL
	u.RawQuery = ""
	e := &APIError{Method: req.Method, URL: u.String(), Status: resp.StatusCode, ActivityID: resp.Header.Get("ActivityId")}
	if secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && secs >= 0 {
		e.RetryAfter = time.Duration(secs) * time.Second
	}
	ex, ok := parseException(resp.Header.Get("Content-Type"), body)
	if ok {
		e.TypeName, e.Message = ex.TypeName, ex.Message
	} else {
		e.Message = truncate(strings.TrimSpace(string(body)), 512)
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// callKind says what a failed call was, where the same status means different things.
type callKind int

const (
	adminCall         callKind = iota // admin token calls
	sessionCreateCall                 // POST …/sessions: 409 is a session conflict
	queueCall                         // queue token calls: 401 is an expired queue token
)

// classify turns an APIError into garrison's typed errors.
func classify(op string, kind callKind, e *APIError, now time.Time) error {
	switch {
	case e.Status == http.StatusTooManyRequests || (e.Status == http.StatusForbidden && e.RetryAfter > 0):
		wait := e.RetryAfter
		if wait <= 0 {
			wait = time.Minute
		}
		return fmt.Errorf("scaleset: %s: %w: %w", op, &garrison.RateLimitError{Until: now.Add(wait)}, e)
	case strings.Contains(e.TypeName, "AgentExistsException"):
		return wrapErr(op, ErrRunnerExists, garrison.EConflict, e)
	case strings.Contains(e.TypeName, "JobStillRunningException"):
		return wrapErr(op, ErrJobStillRunning, garrison.EConflict, e)
	case strings.Contains(e.TypeName, "NotFoundException") || e.Status == http.StatusNotFound:
		return wrapErr(op, nil, garrison.ENotFound, e)
	case e.Status == http.StatusConflict && kind == sessionCreateCall:
		return wrapErr(op, ErrSessionConflict, garrison.EConflict, e)
	case e.Status == http.StatusUnauthorized && kind == queueCall:
		return wrapErr(op, ErrTokenExpired, garrison.EUnauthorized, e)
	}
	return wrapErr(op, nil, codeFor(e.Status), e)
}

func wrapErr(op string, sentinel error, code garrison.ErrorCode, e *APIError) error {
	ge := &garrison.Error{Code: code, Message: fmt.Sprintf("actions service: %s: %s", op, e.summary())}
	if sentinel != nil {
		return fmt.Errorf("scaleset: %s: %w: %w: %w", op, sentinel, ge, e)
	}
	return fmt.Errorf("scaleset: %s: %w: %w", op, ge, e)
}

// summary is the part of the error safe to show to an API client.
func (e *APIError) summary() string {
	if e.Message != "" {
		return fmt.Sprintf("%d %s", e.Status, e.Message)
	}
	return fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
}

func codeFor(status int) garrison.ErrorCode {
	switch {
	case status == http.StatusNotFound:
		return garrison.ENotFound
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return garrison.EUnauthorized
	case status == http.StatusConflict:
		return garrison.EConflict
	case status == http.StatusUnprocessableEntity:
		return garrison.EUnprocessable
	case status == http.StatusBadRequest:
		return garrison.EInvalid
	case status >= 500:
		return garrison.EUnavailable
	}
	return garrison.EInternal
}

package github

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	gh "github.com/google/go-github/v90/github"

	"github.com/garrison-ci/garrison"
)

// wrap classifies a go-github error. The result wraps both a *garrison.Error and err.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var code garrison.ErrorCode
	var msg string
	var er *gh.ErrorResponse
	var rl *gh.RateLimitError
	var ab *gh.AbuseRateLimitError
	switch {
	case errors.As(err, &er) && er.Response != nil:
		code, msg = codeFor(er.Response.StatusCode), er.Message
	case errors.As(err, &rl):
		return fmt.Errorf("github: %s: %w: %w", op, &garrison.RateLimitError{Until: rl.Rate.Reset.Time}, err)
	case errors.As(err, &ab):
		until := time.Now().Add(ab.GetRetryAfter())
		return fmt.Errorf("github: %s: %w: %w", op, &garrison.RateLimitError{Until: until}, err)
	default:
		return fmt.Errorf("github: %s: %w", op, err)
	}
	return fmt.Errorf("github: %s: %w: %w", op, &garrison.Error{Code: code, Message: msg}, err)
}

func codeFor(status int) garrison.ErrorCode {
	switch status {
	case http.StatusNotFound:
		return garrison.ENotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		return garrison.EUnauthorized
	case http.StatusConflict:
		return garrison.EConflict
	case http.StatusUnprocessableEntity:
		return garrison.EUnprocessable
	case http.StatusBadRequest:
		return garrison.EInvalid
	}
	return garrison.EInternal
}

// accepted reports whether err is go-github's *AcceptedError (a 202, which is success).
func accepted(err error) bool {
	var ae *gh.AcceptedError
	return errors.As(err, &ae)
}

func errUnsupported(op string, e garrison.Entity) error {
	return garrison.Errorf(garrison.EInvalid, "github: %s is not available for %s %q", op, e.Type, e.FullName())
}

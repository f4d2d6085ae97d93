package apiclient

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is a non-2xx answer from the API.
type Error struct {
	// StatusCode is the HTTP status code of the response.
	StatusCode int
	// Code is the "error" key of the body (for example "Not Found").
	Code string
	// Details is the "details" key of the body (the human-readable message).
	Details string
	// Method and Path identify the request that failed.
	Method, Path string
}

// Error returns the details of the error or, when they are empty, the error
// code of the body or the HTTP status text.
func (e *Error) Error() string {
	switch {
	case e.Details != "":
		return e.Details
	case e.Code != "":
		return e.Code
	case http.StatusText(e.StatusCode) != "":
		return http.StatusText(e.StatusCode)
	default:
		return fmt.Sprintf("HTTP status %d", e.StatusCode)
	}
}

// StatusCode returns the HTTP status code carried by err, or 0 when err is
// not (and does not wrap) an *Error.
func StatusCode(err error) int {
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is an API error with status 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsConflict reports whether err is an API error with status 409.
func IsConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// IsUnauthorized reports whether err is an API error with status 401.
func IsUnauthorized(err error) bool { return StatusCode(err) == http.StatusUnauthorized }

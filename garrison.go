// Package garrison holds the domain of the garrison runner manager: forge endpoints and
// credentials, the entities (repositories, organizations, enterprises) whose jobs it serves,
// pools, instances, jobs, and the errors every layer uses to tell failures apart.
//
// It imports the standard library only. Adapters (stores, forge clients, provider hosts, the
// HTTP API) depend on it; it depends on none of them.
package garrison

import (
	"errors"
	"fmt"
)

// ErrorCode classifies a failure independently of the layer that produced it. The HTTP API
// maps codes to status codes in one place.
type ErrorCode string

// Error codes.
const (
	ENotFound      ErrorCode = "not_found"     // the named thing does not exist
	EConflict      ErrorCode = "conflict"      // a duplicate, or the state forbids the change
	EInvalid       ErrorCode = "invalid"       // the request is malformed or fails validation
	EUnauthorized  ErrorCode = "unauthorized"  // missing or bad credentials
	EUnprocessable ErrorCode = "unprocessable" // understood, but will not be acted upon
	EUnavailable   ErrorCode = "unavailable"   // cannot be done now; try again later
	EInternal      ErrorCode = "internal"      // anything else; details never reach a client
)

// Error is a classified, user-facing failure. Message is safe to show to an API client.
type Error struct {
	Code    ErrorCode
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return e.Message
}

// Is makes errors.Is(err, ErrNotFound) (and the other sentinels) match any *Error with the
// same code, whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// Sentinels for errors.Is. They carry no message.
var (
	ErrNotFound      = &Error{Code: ENotFound}
	ErrConflict      = &Error{Code: EConflict}
	ErrInvalid       = &Error{Code: EInvalid}
	ErrUnauthorized  = &Error{Code: EUnauthorized}
	ErrUnprocessable = &Error{Code: EUnprocessable}
	ErrUnavailable   = &Error{Code: EUnavailable}
	// ErrFenced refuses a write made under a claim (a pool's, a sweep's, a scale set's
	// session) whose fencing token is older than the claim's: another replica took the
	// claim over since. It is a conflict, so errors.Is(err, ErrConflict) holds too.
	ErrFenced = &Error{Code: EConflict, Message: "fenced: the claim was taken over by another replica"}
)

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of the first *Error in err's chain, or EInternal.
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// MessageOf returns the message of the first *Error in err's chain, or "" when err is not
// classified (internal details never reach a client).
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return ""
}

package httpapi

import (
	"errors"
	"net/http"

	"github.com/garrison-ci/garrison"
)

// errorBody is the body of every error response (§1.4); both keys are always present.
type errorBody struct {
	Error   string `json:"error"`
	Details string `json:"details"`
}

// errorResponse maps an error to its status and body. Only *garrison.Error messages reach
// the client; anything unclassified is a 500 with empty details.
func errorResponse(err error) (int, errorBody) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, errorBody{Error: "Request Entity Too Large",
			Details: "request body too large"}
	}
	msg := garrison.MessageOf(err)
	switch garrison.CodeOf(err) {
	case garrison.ENotFound:
		return http.StatusNotFound, errorBody{Error: "Not Found", Details: msg}
	case garrison.EUnauthorized:
		return http.StatusUnauthorized, errorBody{Error: "Not Authorized"}
	case garrison.EInvalid:
		return http.StatusBadRequest, errorBody{Error: "Bad Request", Details: msg}
	case garrison.EConflict:
		return http.StatusConflict, errorBody{Error: "Conflict", Details: msg}
	case garrison.EUnprocessable:
		return http.StatusUnprocessableEntity, errorBody{Error: "Unprocessable Content", Details: msg}
	}
	return http.StatusInternalServerError, errorBody{Error: "Server error"}
}

// writeErr writes err's response and logs server errors with their details.
func (s *Server) writeErr(w http.ResponseWriter, r *http.Request, err error) {
	status, body := errorResponse(err)
	if status == http.StatusInternalServerError {
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	} else {
		s.log.DebugContext(r.Context(), "request refused", "method", r.Method, "path", r.URL.Path,
			"status", status, "err", err)
	}
	writeJSON(w, status, body)
}

// writeNotFound answers an unknown route (G-9).
func writeNotFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, errorBody{Error: "Not found", Details: "Resource not found"})
}

// writeAuthFailed answers a request whose token was not accepted; it never says why.
func writeAuthFailed(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, errorBody{Error: "Authentication failed"})
}

// invalid returns a 400-class error with a client-visible message.
func invalid(format string, args ...any) error {
	return garrison.Errorf(garrison.EInvalid, format, args...)
}

// notFound returns a 404-class error with a client-visible message.
func notFound(format string, args ...any) error {
	return garrison.Errorf(garrison.ENotFound, format, args...)
}

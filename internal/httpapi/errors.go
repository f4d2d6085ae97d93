package httpapi

import (
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httperr"
)

// errorBody is the body of every error response (§1.4); both keys are always present.
type errorBody = apiv1.APIError

// writeErr writes err's response and logs server errors with their details.
func (s *Server) writeErr(w http.ResponseWriter, r *http.Request, err error) {
	status, body := httperr.Response(err)
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

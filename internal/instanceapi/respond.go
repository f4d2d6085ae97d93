package instanceapi

import (
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httperr"
)

// errorBody is the common error body (rest-api.md §1.4).
type errorBody = apiv1.APIError

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) { httperr.WriteJSON(w, status, v) }

// writeAuthFailed answers a request whose instance token was not accepted (§2).
func writeAuthFailed(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, apiv1.APIError{Error: "Authentication failed"})
}

// writeErr writes err's response, logging server errors with their details.
func (h *Handler) writeErr(w http.ResponseWriter, r *http.Request, err error) {
	status, body := httperr.Response(err)
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", status, "err", err}
	if ai, ok := authFrom(r.Context()); ok {
		attrs = append(attrs, "instance", ai.inst.Name, "pool", ai.pool.ID)
	}
	if status == http.StatusInternalServerError {
		h.log.ErrorContext(r.Context(), "instance request failed", attrs...)
	} else {
		h.log.DebugContext(r.Context(), "instance request refused", attrs...)
	}
	writeJSON(w, status, body)
}

// writeText writes body with the given content type and 200.
func writeText(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	w.Write(body) //nolint:errcheck // the client went away
}

// errNotAuthorized is the 401 {"error":"Not Authorized"} of handlers (T-1).
var errNotAuthorized = &garrison.Error{Code: garrison.EUnauthorized, Message: "not authorized"}

func invalid(format string, args ...any) error {
	return garrison.Errorf(garrison.EInvalid, format, args...)
}

func notFound(format string, args ...any) error {
	return garrison.Errorf(garrison.ENotFound, format, args...)
}

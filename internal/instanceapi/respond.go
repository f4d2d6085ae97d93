package instanceapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/garrison-ci/garrison"
)

// errorBody is the common error body (rest-api.md §1.4); both keys always present.
type errorBody struct {
	Error   string `json:"error"`
	Details string `json:"details"`
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"Server error","details":""}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // the client went away
}

// writeAuthFailed answers a request whose instance token was not accepted (§2).
func writeAuthFailed(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, errorBody{Error: "Authentication failed"})
}

// errorResponse maps err to a status and body (rest-api.md §1.4): only *garrison.Error
// messages reach the client; 401 and 500 carry no details.
func errorResponse(err error) (int, errorBody) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, errorBody{Error: "Request Entity Too Large", Details: "request body too large"}
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

// writeErr writes err's response, logging server errors with their details.
func (h *Handler) writeErr(w http.ResponseWriter, r *http.Request, err error) {
	status, body := errorResponse(err)
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

// Package httperr maps garrison's domain errors to HTTP answers, in one place for every
// HTTP surface (the REST API, the instance API, webhook intake): the status codes and
// fixed error texts of rest-api.md §1.4. Only *garrison.Error messages reach a client;
// 401 and 500 answers carry no details.
package httperr

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// Status returns the HTTP status of a domain error code.
func Status(c garrison.ErrorCode) int {
	switch c {
	case garrison.ENotFound:
		return http.StatusNotFound
	case garrison.EUnauthorized:
		return http.StatusUnauthorized
	case garrison.EInvalid:
		return http.StatusBadRequest
	case garrison.EConflict:
		return http.StatusConflict
	case garrison.EUnprocessable:
		return http.StatusUnprocessableEntity
	case garrison.EUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// texts are the fixed "error" values by status.
var texts = map[int]string{
	http.StatusNotFound:              "Not Found",
	http.StatusUnauthorized:          "Not Authorized",
	http.StatusBadRequest:            "Bad Request",
	http.StatusConflict:              "Conflict",
	http.StatusUnprocessableEntity:   "Unprocessable Content",
	http.StatusRequestEntityTooLarge: "Request Entity Too Large",
	http.StatusInternalServerError:   "Server error",
}

// Text returns the fixed "error" text of a status.
func Text(status int) string {
	if t, ok := texts[status]; ok {
		return t
	}
	return http.StatusText(status)
}

// Response maps err to its status and body.
func Response(err error) (int, apiv1.APIError) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, apiv1.APIError{Error: Text(http.StatusRequestEntityTooLarge),
			Details: "request body too large"}
	}
	status := Status(garrison.CodeOf(err))
	body := apiv1.APIError{Error: Text(status)}
	if status != http.StatusUnauthorized && status != http.StatusInternalServerError {
		body.Details = garrison.MessageOf(err)
	}
	return status, body
}

// serverErrorBody is the answer to a value that does not encode.
var serverErrorBody = []byte(`{"error":"Server error","details":""}`)

// WriteJSON writes v as a JSON answer with status. A long list (listStreamed elements or
// more) is encoded and sent a chunk at a time (see writeList).
func WriteJSON(w http.ResponseWriter, status int, v any) {
	if list, ok := streamable(v); ok {
		writeList(w, status, list)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, serverErrorBody
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b) // the client went away
}

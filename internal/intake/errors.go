package intake

import (
	"encoding/json"
	"net/http"

	"github.com/garrison-ci/garrison"
)

// reply is what the receiver answers: a status, and for errors the rest-api.md §1.4 body.
type reply struct {
	status  int
	result  Result
	err     error  // nil for 2xx answers
	details string // overrides the error's message in the body when set
}

func okReply(r Result) reply { return reply{status: http.StatusOK, result: r} }

// errReply classifies err with the domain error codes (rest-api.md §1.4).
func errReply(r Result, err error) reply {
	return reply{status: statusOf(garrison.CodeOf(err)), result: r, err: err}
}

func statusOf(c garrison.ErrorCode) int {
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
	}
	return http.StatusInternalServerError
}

// errorTexts are the fixed "error" values of rest-api.md §1.4.
var errorTexts = map[int]string{
	http.StatusNotFound:              "Not Found",
	http.StatusUnauthorized:          "Not Authorized",
	http.StatusBadRequest:            "Bad Request",
	http.StatusConflict:              "Conflict",
	http.StatusUnprocessableEntity:   "Unprocessable Content",
	http.StatusRequestEntityTooLarge: "Request Entity Too Large",
}

type errorBody struct {
	Error   string `json:"error"`
	Details string `json:"details"`
}

// write sends the reply: 2xx answers have an empty body.
func (rp reply) write(w http.ResponseWriter) {
	if rp.status < 300 {
		w.WriteHeader(rp.status)
		return
	}
	body := errorBody{Error: errorTexts[rp.status], Details: rp.details}
	switch {
	case body.Error == "":
		body.Error, body.Details = "Server error", ""
	case rp.status == http.StatusUnauthorized:
		body.Details = ""
	case body.Details == "":
		body.Details = garrison.MessageOf(rp.err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rp.status)
	_ = json.NewEncoder(w).Encode(body)
}

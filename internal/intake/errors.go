package intake

import (
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httperr"
)

// reply is what the receiver answers: a status, and for errors the rest-api.md §1.4 body.
type reply struct {
	status  int
	result  Result
	err     error    // nil for 2xx answers
	details string   // overrides the error's message in the body when set
	notify  []string // pool ids to enqueue once the answer is sent
}

func okReply(r Result) reply { return reply{status: http.StatusOK, result: r} }

// errReply classifies err with the domain error codes (rest-api.md §1.4).
func errReply(r Result, err error) reply {
	return reply{status: httperr.Status(garrison.CodeOf(err)), result: r, err: err}
}

// write sends the reply: 2xx answers have an empty body.
func (rp reply) write(w http.ResponseWriter) {
	if rp.status < 300 {
		w.Header().Set("Content-Length", "0") // complete once flushed
		w.WriteHeader(rp.status)
		return
	}
	body := apiv1.APIError{Error: httperr.Text(rp.status), Details: rp.details}
	switch {
	case rp.status == http.StatusUnauthorized || rp.status >= 500:
		body.Details = ""
	case body.Details == "":
		body.Details = garrison.MessageOf(rp.err)
	}
	httperr.WriteJSON(w, rp.status, body)
}

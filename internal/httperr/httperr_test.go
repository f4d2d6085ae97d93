package httperr

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

func TestResponse(t *testing.T) {
	cases := []struct {
		err           error
		status        int
		text, details string
	}{
		{garrison.Errorf(garrison.ENotFound, "pool p not found"), 404, "Not Found", "pool p not found"},
		{fmt.Errorf("wrapped: %w", garrison.Errorf(garrison.EInvalid, "bad")), 400, "Bad Request", "bad"},
		{garrison.Errorf(garrison.EConflict, "taken"), 409, "Conflict", "taken"},
		{garrison.Errorf(garrison.EUnprocessable, "no"), 422, "Unprocessable Content", "no"},
		{garrison.Errorf(garrison.EUnauthorized, "secret reason"), 401, "Not Authorized", ""},
		{errors.New("database exploded at /var/lib/x"), 500, "Server error", ""},
		{&http.MaxBytesError{Limit: 1}, 413, "Request Entity Too Large", "request body too large"},
		{fmt.Errorf("github: list runners: %w", &garrison.RateLimitError{Until: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}),
			503, "Service Unavailable", "forge API rate limit reached until 2030-01-02T03:04:05Z"},
	}
	for _, c := range cases {
		status, body := Response(c.err)
		if status != c.status || body.Error != c.text || body.Details != c.details {
			t.Errorf("Response(%v) = %d %+v, want %d %q %q", c.err, status, body, c.status, c.text, c.details)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, 409, map[string]string{"error": "Conflict", "details": "x"})
	if rec.Code != 409 || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != `{"details":"x","error":"Conflict"}` {
		t.Errorf("got %d %q %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	rec = httptest.NewRecorder()
	WriteJSON(rec, 200, func() {})
	if rec.Code != 500 {
		t.Errorf("unencodable value: %d", rec.Code)
	}
}

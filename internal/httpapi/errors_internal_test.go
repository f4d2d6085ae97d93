package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestErrorResponse(t *testing.T) {
	tests := []struct {
		err     error
		status  int
		errText string
		details string
	}{
		{garrison.Errorf(garrison.ENotFound, "pool x not found"), 404, "Not Found", "pool x not found"},
		{fmt.Errorf("wrapped: %w", garrison.Errorf(garrison.EInvalid, "bad")), 400, "Bad Request", "bad"},
		{garrison.Errorf(garrison.EConflict, "dup"), 409, "Conflict", "dup"},
		{garrison.Errorf(garrison.EUnprocessable, "no"), 422, "Unprocessable Content", "no"},
		{garrison.Errorf(garrison.EUnauthorized, "secret reason"), 401, "Not Authorized", ""},
		{garrison.Errorf(garrison.EInternal, "db password is hunter2"), 500, "Server error", ""},
		{errors.New("sql: connection refused"), 500, "Server error", ""},
		{&http.MaxBytesError{Limit: 1}, 413, "Request Entity Too Large", "request body too large"},
	}
	for _, tt := range tests {
		status, body := errorResponse(tt.err)
		if status != tt.status || body.Error != tt.errText || body.Details != tt.details {
			t.Errorf("errorResponse(%v) = %d %+v", tt.err, status, body)
		}
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0b7c6f1e-1111-4222-8333-444455556666":   true,
		"0B7C6F1E-1111-4222-8333-444455556666":   true,
		"0b7c6f1e111142228333444455556666":       false,
		"0b7c6f1e-1111-4222-8333-44445555666g":   false,
		"{0b7c6f1e-1111-4222-8333-444455556666}": false,
		"":                                       false,
	} {
		if isUUID(s) != want {
			t.Errorf("isUUID(%q) = %v", s, !want)
		}
	}
}

func TestValidateName(t *testing.T) {
	for name, ok := range map[string]bool{"github.com": true, "ghes_prod-1": true, "": false, "a/b": false,
		"a b": false, "x%2F": false, string(make([]byte, MaxNameLen+1)): false} {
		if (validateName(name) == nil) != ok {
			t.Errorf("validateName(%q) ok = %v", name, !ok)
		}
	}
}

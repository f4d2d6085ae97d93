package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
)

// TestHandle checks the adapter: a nil error leaves the handler's own answer alone, an
// error is answered through the one domain-error mapping and logged with its details,
// at error level only when it is the server's own failure.
func TestHandle(t *testing.T) {
	tests := []struct {
		name     string
		h        apiHandler
		status   int
		body     string
		logLevel string // "" when nothing is logged
	}{
		{"nil error keeps the handler's answer", func(w http.ResponseWriter, _ *http.Request) error {
			writeJSON(w, http.StatusTooManyRequests, errorBody{Error: "Too Many Requests"})
			return nil
		}, http.StatusTooManyRequests, `{"error":"Too Many Requests","details":""}`, ""},
		{"nil error without an answer", func(http.ResponseWriter, *http.Request) error { return nil },
			http.StatusOK, ``, ""},
		{"domain error", func(http.ResponseWriter, *http.Request) error {
			return fmt.Errorf("loading: %w", notFound("pool p not found"))
		}, http.StatusNotFound, `{"error":"Not Found","details":"pool p not found"}`, "DEBUG"},
		{"unauthorized hides its message", func(http.ResponseWriter, *http.Request) error {
			return garrison.Errorf(garrison.EUnauthorized, "token of another user")
		}, http.StatusUnauthorized, `{"error":"Not Authorized","details":""}`, "DEBUG"},
		{"internal error hides its details", func(http.ResponseWriter, *http.Request) error {
			return errors.New("database file /var/lib/garrison/x is locked")
		}, http.StatusInternalServerError, `{"error":"Server error","details":""}`, "ERROR"},
		{"oversized body", func(http.ResponseWriter, *http.Request) error {
			return &http.MaxBytesError{Limit: MaxBodyBytes}
		}, http.StatusRequestEntityTooLarge, `{"error":"Request Entity Too Large","details":"request body too large"}`, "DEBUG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := &Server{log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
			w := httptest.NewRecorder()
			r := httptest.NewRequestWithContext(context.Background(), "GET", "/api/v1/pools/p", nil)
			s.handle(tt.h)(w, r)
			if w.Code != tt.status || w.Body.String() != tt.body {
				t.Fatalf("answer %d %s, want %d %s", w.Code, w.Body, tt.status, tt.body)
			}
			line := logs.String()
			if tt.logLevel == "" {
				if line != "" {
					t.Fatalf("logged %q, want nothing", line)
				}
				return
			}
			for _, want := range []string{"level=" + tt.logLevel, "path=/api/v1/pools/p", "err="} {
				if !strings.Contains(line, want) {
					t.Errorf("log %q lacks %q", line, want)
				}
			}
		})
	}
}

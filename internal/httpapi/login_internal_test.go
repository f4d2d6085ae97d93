package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
)

// TestLoginFailedRefunds checks which failed logins keep their attempt counted: only
// those whose password was checked.
func TestLoginFailedRefunds(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		status   int
		refunded bool
	}{
		{"wrong password", garrison.ErrUnauthorized, http.StatusUnauthorized, false},
		{"no free password check", fmt.Errorf("waiting: %w", errLoginBusy), http.StatusServiceUnavailable, true},
		{"store failure", fmt.Errorf("database is down"), http.StatusInternalServerError, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{log: slog.New(slog.DiscardHandler),
				limiter: auth.NewLimiter(auth.LimiterConfig{Burst: 1, Every: time.Hour}, nil)}
			const client = "203.0.113.7"
			if ok, _ := s.limiter.Take(client); !ok {
				t.Fatal("first attempt refused")
			}
			w := httptest.NewRecorder()
			r := httptest.NewRequestWithContext(context.Background(), "POST", "/api/v1/auth/login", nil)
			s.handle(func(w http.ResponseWriter, r *http.Request) error {
				return s.loginFailed(w, r, client, tt.err)
			})(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d", w.Code, tt.status)
			}
			if tt.status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			if ok, _ := s.limiter.Take(client); ok != tt.refunded {
				t.Fatalf("attempt given back = %v, want %v", ok, tt.refunded)
			}
		})
	}
}

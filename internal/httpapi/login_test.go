package httpapi_test

import (
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"golang.org/x/crypto/bcrypt"
)

// seedAdmin stores the admin user with a bcrypt hash of adminPassword at the given cost
// (bcrypt.MinCost spares tests of many logins the hashing time).
func seedAdmin(h *harness, cost int) {
	h.t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(adminPassword), cost)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.store.CreateAdmin(h.t.Context(), garrison.User{Username: adminUser, Email: adminEmail,
		PasswordHash: string(hash), Enabled: true, IsAdmin: true}); err != nil {
		h.t.Fatal(err)
	}
}

// TestLoginParallelAttemptsLimited is issue #12's bypass: 60 wrong passwords sent at once
// from one address. Each attempt must count when it starts, so no more than the limit are
// checked (answered 401); the rest are held back (429).
func TestLoginParallelAttemptsLimited(t *testing.T) {
	const limit, attempts = 10, 60
	h := newHarness(t, openSQLite, func(o *httpapi.Options) {
		o.LoginLimit = auth.LimiterConfig{Burst: limit, Every: time.Hour}
		o.MaxPasswordChecks = limit // no check waits for a slot, however slow the machine
	})
	seedAdmin(h, bcrypt.DefaultCost) // real checks are slow: that is the window of the bypass
	statuses := make(chan int, attempts)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			<-start
			statuses <- h.call("POST", api("/auth/login"), "",
				apiv1.PasswordLoginParams{Username: adminUser, Password: "wrong-password"}).status
		})
	}
	close(start)
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	if count[http.StatusUnauthorized] != limit || count[http.StatusTooManyRequests] != attempts-limit {
		t.Fatalf("answers %v, want %d checked (401) and %d held back (429)", count, limit, attempts-limit)
	}
}

// TestLoginForwardedFor checks that X-Forwarded-For picks the client only behind a
// trusted proxy: elsewhere, varying it does not escape the limit.
func TestLoginForwardedFor(t *testing.T) {
	wrong := apiv1.PasswordLoginParams{Username: adminUser, Password: "wrong-password"}
	login := func(h *harness, xff string) int {
		req, err := http.NewRequestWithContext(t.Context(), "POST", h.srv.URL+api("/auth/login"),
			strings.NewReader(`{"username":"`+wrong.Username+`","password":"`+wrong.Password+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", xff)
		return h.send(req).status
	}
	tests := []struct {
		name    string
		trusted []netip.Prefix
		xff     []string // one login each
		want    []int
	}{
		{"untrusted peer: header ignored", nil,
			[]string{"203.0.113.1", "203.0.113.2", "203.0.113.3"}, []int{401, 401, 429}},
		{"peer not in the trusted range", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
			[]string{"203.0.113.1", "203.0.113.2", "203.0.113.3"}, []int{401, 401, 429}},
		{"trusted proxy: one limit per client", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			[]string{"203.0.113.1", "203.0.113.2", "203.0.113.1", "203.0.113.2", "203.0.113.1"},
			[]int{401, 401, 401, 401, 429}},
		{"trusted proxy: forged left-most hops ignored", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			[]string{"198.51.100.1, 203.0.113.1", "198.51.100.2, 203.0.113.1", "198.51.100.3, 203.0.113.1"},
			[]int{401, 401, 429}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, openSQLite, func(o *httpapi.Options) {
				o.LoginLimit = auth.LimiterConfig{Burst: 2, Every: time.Hour}
				o.TrustedProxies = tt.trusted
			})
			seedAdmin(h, bcrypt.MinCost)
			for i, xff := range tt.xff {
				if got := login(h, xff); got != tt.want[i] {
					t.Fatalf("login %d (X-Forwarded-For %q) = %d, want %d", i, xff, got, tt.want[i])
				}
			}
		})
	}
}

package httpapi_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/httpapi"
	"golang.org/x/crypto/bcrypt"
)

// serveTCP serves the API, with a body-reading webhook receiver mounted, on a real
// loopback listener through NewHTTPServer and returns its address.
func serveTCP(t *testing.T, timeouts httpapi.Timeouts) string {
	t.Helper()
	h := newHarness(t, openSQLite)
	seedAdmin(h, bcrypt.MinCost) // an initialized store, so that login reads its body
	api, err := httpapi.New(httpapi.Options{Store: h.store, JWTSecret: []byte(jwtSecret),
		Webhooks: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.ReadAll(r.Body); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusOK)
		})})
	if err != nil {
		t.Fatal(err)
	}
	srv := httpapi.NewHTTPServer(api, timeouts, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// trickle sends head and then n bytes one at a time, a few milliseconds apart, and
// reports whether the server closed the connection before the last byte was sent.
func trickle(t *testing.T, addr, head string, n int) bool {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, conn)
		close(closed)
	}()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for range n {
		select {
		case <-closed:
			return true
		case <-tick.C:
		}
		if _, err := conn.Write([]byte{'a'}); err != nil {
			return true
		}
	}
	return false
}

// TestSlowRequestsCutOff trickles requests over a real TCP connection. With a short
// configured timeout the server must close the connection before the client is done;
// without one it would read the whole request, however slowly it came.
func TestSlowRequestsCutOff(t *testing.T) {
	const n = 2000 // bytes trickled: seconds of sending, far beyond the timeouts
	tests := []struct {
		name     string
		timeouts httpapi.Timeouts
		head     string
	}{
		{"body of a webhook", httpapi.Timeouts{Read: 100 * time.Millisecond},
			"POST /webhooks/x HTTP/1.1\r\nHost: garrison\r\nContent-Length: 2000\r\n\r\n"},
		{"body of a login", httpapi.Timeouts{Read: 100 * time.Millisecond},
			"POST /api/v1/auth/login HTTP/1.1\r\nHost: garrison\r\nContent-Type: application/json\r\nContent-Length: 2000\r\n\r\n"},
		{"headers", httpapi.Timeouts{ReadHeader: 100 * time.Millisecond},
			"GET /healthz HTTP/1.1\r\nHost: garrison\r\nX-Padding: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := serveTCP(t, tt.timeouts)
			if !trickle(t, addr, tt.head, n) {
				t.Fatalf("the server read all %d trickled bytes without cutting the connection off", n)
			}
		})
	}
}

// TestIdleConnectionClosed checks that a kept-alive connection with no next request is
// closed.
func TestIdleConnectionClosed(t *testing.T) {
	addr := serveTCP(t, httpapi.Timeouts{Idle: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: garrison\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz = %d", resp.StatusCode)
	}
	// A guard against hanging forever, not a bound on the server: it has 100 ms.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := rd.ReadByte(); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("idle connection: read = %v, want the server to close it", err)
	}
}

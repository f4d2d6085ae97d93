package httpapi_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/httpapi"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// accessRecords returns the access_log records of a JSON log.
func accessRecords(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["msg"] == "access_log" {
			out = append(out, rec)
		}
	}
	return out
}

// TestAccessLog: every request is logged once it ends with GARM's access_log keys
// (streams-metrics.md §4.2), and never with the token.
func TestAccessLog(t *testing.T) {
	var buf lockedBuffer
	h := newHarness(t, openSQLite, func(o *httpapi.Options) {
		o.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
	})
	tok := h.ready()
	req, err := http.NewRequestWithContext(t.Context(), "GET", h.srv.URL+api("/pools?x=1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("User-Agent", "garm-cli/test")
	r := h.send(req)
	h.expect(h.call("GET", "/no/such/route", tok, nil), 404, nil)

	var pools, missing map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for (pools == nil || missing == nil) && time.Now().Before(deadline) {
		for _, rec := range accessRecords(t, buf.String()) {
			switch rec["uri"] {
			case api("/pools?x=1"):
				pools = rec
			case "/no/such/route":
				missing = rec
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pools == nil || missing == nil {
		t.Fatalf("no access_log records for both requests:\n%s", buf.String())
	}
	if pools["method"] != "GET" || pools["user_agent"] != "garm-cli/test" || pools["code"] != float64(r.status) ||
		pools["bytes"] != float64(len(r.body)) || pools["level"] != "INFO" {
		t.Errorf("access_log record %v, want GET by garm-cli/test, code %d, %d bytes, at INFO", pools, r.status, len(r.body))
	}
	if ip, _ := pools["ip"].(string); !strings.HasPrefix(ip, "127.0.0.1:") {
		t.Errorf("ip %q, want the peer's host:port", ip)
	}
	if d, ok := pools["request_time"].(float64); !ok || d <= 0 {
		t.Errorf("request_time %v, want nanoseconds as a number", pools["request_time"])
	}
	if missing["code"] != float64(404) {
		t.Errorf("404 logged with code %v", missing["code"])
	}
	if strings.Contains(buf.String(), tok) {
		t.Error("the log holds the token")
	}
}

// TestAccessLogLevel: Options.AccessLogLevel sets the level of the access_log records
// (the test servers log them at DEBUG), INFO when unset.
func TestAccessLogLevel(t *testing.T) {
	tests := []struct {
		name  string
		level slog.Level
		want  string
	}{
		{"unset", 0, "INFO"},
		{"debug", slog.LevelDebug, "DEBUG"},
		{"warn", slog.LevelWarn, "WARN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf lockedBuffer
			h := newHarness(t, openSQLite, func(o *httpapi.Options) {
				o.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
				o.AccessLogLevel = tt.level
			})
			h.expect(h.call("GET", "/no/such/route", "", nil), 404, nil)
			var got map[string]any
			for deadline := time.Now().Add(10 * time.Second); got == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				for _, rec := range accessRecords(t, buf.String()) {
					if rec["uri"] == "/no/such/route" {
						got = rec
					}
				}
			}
			if got == nil || got["level"] != tt.want {
				t.Fatalf("access_log record %v, want one at %s:\n%s", got, tt.want, buf.String())
			}
		})
	}
}

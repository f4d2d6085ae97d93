package httpapi

import (
	"bufio"
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAccessLogHijack: a handler behind the access log can take the connection over (as a
// websocket upgrade does), and the request is logged with 101 when the handler returns.
func TestAccessLogHijack(t *testing.T) {
	var buf safeBuf
	done := make(chan struct{})
	s := &Server{log: slog.New(slog.NewTextHandler(&buf, nil))}
	srv := httptest.NewServer(s.accessLog(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		defer close(done)
		c, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer c.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n")
		rw.Flush()
	})))
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n"))
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(status, "101") {
		t.Fatalf("status line %q, %v", status, err)
	}
	<-done
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), "msg=access_log") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // the line is written after the handler returns
	}
	if log := buf.String(); !strings.Contains(log, "msg=access_log") || !strings.Contains(log, "code=101") || !strings.Contains(log, "uri=/ws") {
		t.Errorf("access log %q, want the upgrade logged with code 101", log)
	}
}

// safeBuf is a bytes.Buffer safe for concurrent use.
type safeBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

package httpapi

import (
	"bufio"
	"net"
	"net/http"
	"time"
)

// accessLog logs every request when it ends, at INFO as GARM does (streams-metrics.md §4.2;
// Options.AccessLogLevel changes the level):
// msg "access_log" with method, uri (path and query), user_agent, ip (the peer's
// host:port), code, bytes (response body bytes) and request_time. A hijacked connection (a
// websocket) is logged when its handler returns, with code 101. Headers, cookies and
// bodies are never logged (LG-5).
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &accessRecorder{ResponseWriter: w}
		start := time.Now()
		defer func() {
			code := rec.status
			if code == 0 {
				code = http.StatusOK
			}
			s.log.Log(r.Context(), s.opts.AccessLogLevel, "access_log", "method", r.Method, "uri", r.URL.RequestURI(),
				"user_agent", r.UserAgent(), "ip", r.RemoteAddr, "code", code, "bytes", rec.bytes,
				"request_time", time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// accessRecorder remembers the status code and counts the body bytes written. It passes
// Flush and Hijack through, so streaming and websocket handlers work behind it.
type accessRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *accessRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *accessRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *accessRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush sends buffered data to the client, when the underlying writer can.
func (r *accessRecorder) Flush() { _ = http.NewResponseController(r.ResponseWriter).Flush() }

// Hijack hands the connection over (websocket upgrades); the request is logged with 101.
func (r *accessRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil && r.status == 0 {
		r.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

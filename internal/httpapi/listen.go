package httpapi

import (
	"cmp"
	"log/slog"
	"net/http"
	"time"
)

// Timeouts bound how long a connection may take at each step of HTTP/1.1. Zero fields
// take the value of DefaultTimeouts.
//
// Read bounds each request as a whole, headers and body: a client that trickles its body
// is cut off. Net/http clears the read deadline once the body is consumed, so a long
// handler is not affected. A route that must accept slower bodies (large uploads) extends
// its own deadline with http.ResponseController.SetReadDeadline before it reads the body;
// a stream that hijacks the connection (websockets) clears both deadlines itself.
type Timeouts struct {
	// ReadHeader bounds the request line and headers.
	ReadHeader time.Duration
	// Read bounds the request line, headers and body.
	Read time.Duration
	// Write bounds the handler and its response, from the end of the request headers.
	Write time.Duration
	// Idle bounds the wait for the next request on a kept-alive connection.
	Idle time.Duration
}

// DefaultTimeouts are generous for every route garrison serves: small JSON bodies,
// webhook deliveries (GitHub gives up after 10 s) and runner callbacks (1 MiB at most).
var DefaultTimeouts = Timeouts{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      2 * time.Minute,
	Idle:       2 * time.Minute,
}

// withDefaults returns t with its zero fields taken from DefaultTimeouts.
func (t Timeouts) withDefaults() Timeouts {
	def := DefaultTimeouts
	return Timeouts{
		ReadHeader: cmp.Or(t.ReadHeader, def.ReadHeader),
		Read:       cmp.Or(t.Read, def.Read),
		Write:      cmp.Or(t.Write, def.Write),
		Idle:       cmp.Or(t.Idle, def.Idle),
	}
}

// NewHTTPServer returns the http.Server every garrison listener uses: it serves h with
// the timeouts t and logs the server's own errors (bad TLS handshakes, panics net/http
// recovered) to log at level warn. log may be nil.
func NewHTTPServer(h http.Handler, t Timeouts, log *slog.Logger) *http.Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t = t.withDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

package apiclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Websocket keep-alive, as garm-cli does it (streams-metrics.md WS-6): a ping every 54 s,
// and a session that hears nothing (not even a pong) for 60 s is over.
const (
	streamPongWait   = 60 * time.Second
	streamPingPeriod = streamPongWait * 9 / 10
	streamWriteWait  = 10 * time.Second
)

// Stream paths below the API prefix.
const (
	EventsStream  = "/ws/events"
	LogsStream    = "/ws/logs"
	MetricsStream = "/ws/metrics"
)

// Stream is an open websocket session on one of the server's streams. Next returns its
// frames; Send writes a text frame (the event subscription). Close ends it.
type Stream struct {
	conn  *websocket.Conn
	done  chan struct{}
	pongs chan struct{}
	once  sync.Once
	mu    sync.Mutex // serializes writes (Send and the keep-alive pings)
}

// Stream opens a websocket session on path (one of EventsStream, LogsStream,
// MetricsStream) with the client's token in "Authorization: Bearer". A refused handshake
// is returned as *Error (401 for a missing or expired token, 400 for a disabled log
// streamer).
func (c *Client) Stream(ctx context.Context, path string) (*Stream, error) {
	u := *c.base
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path += path
	d := websocket.Dialer{HandshakeTimeout: Timeout, Proxy: http.ProxyFromEnvironment}
	if t, ok := c.http.Transport.(*http.Transport); ok {
		d.TLSClientConfig, d.Proxy = t.TLSClientConfig, t.Proxy
		if t.DialContext != nil {
			d.NetDialContext = t.DialContext
		}
	}
	header := http.Header{"Authorization": {"Bearer " + c.token}}
	conn, resp, err := d.DialContext(ctx, u.String(), header)
	if err != nil {
		c.logf("GET %s: %v", u.Redacted(), err)
		if resp != nil && errors.Is(err, websocket.ErrBadHandshake) {
			defer resp.Body.Close()
			return nil, decodeError(resp, http.MethodGet, path)
		}
		return nil, err
	}
	c.logf("GET %s -> 101", u.Redacted())
	s := &Stream{conn: conn, done: make(chan struct{}), pongs: make(chan struct{}, 1)}
	alive := func() { _ = conn.SetReadDeadline(time.Now().Add(streamPongWait)) }
	alive()
	conn.SetPongHandler(func(string) error {
		alive()
		select {
		case s.pongs <- struct{}{}:
		default:
		}
		return nil
	})
	go s.keepAlive()
	return s, nil
}

func (s *Stream) keepAlive() {
	t := time.NewTicker(streamPingPeriod)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.mu.Lock()
			err := s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(streamWriteWait))
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// Sync returns once the server has answered a ping, so it has handled every message sent
// before (the server reads them in order): a subscription sent before Sync is in force
// after it. Another goroutine must be reading with Next meanwhile.
func (s *Stream) Sync(ctx context.Context) error {
	select {
	case <-s.pongs: // a stale pong from a keep-alive ping
	default:
	}
	s.mu.Lock()
	err := s.conn.WriteControl(websocket.PingMessage, []byte("sync"), time.Now().Add(streamWriteWait))
	s.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-s.pongs:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return ErrStreamClosed
	}
}

// Send writes msg as one text frame.
func (s *Stream) Send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(streamWriteWait))
	return s.conn.WriteMessage(websocket.TextMessage, msg)
}

// Next returns the next data frame, or ErrStreamClosed once the server has ended the
// session normally (token expiry, shutdown).
func (s *Stream) Next() ([]byte, error) {
	_, b, err := s.conn.ReadMessage()
	if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) {
		return nil, ErrStreamClosed
	}
	return b, err
}

// ErrStreamClosed is returned by Next after the server ended the session normally.
var ErrStreamClosed = errors.New("the server closed the stream")

// Close sends a normal closure and closes the connection.
func (s *Stream) Close() error {
	s.once.Do(func() { close(s.done) })
	s.mu.Lock()
	_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		time.Now().Add(time.Second))
	s.mu.Unlock()
	return s.conn.Close()
}

package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/garrison-ci/garrison/internal/events"
)

// registerStreams registers the websocket routes of streams-metrics.md §1 on the admin
// mux (init -> urls -> auth -> admin, WS-1). Without an event hub the event route is
// absent (404), which the web UI takes as "poll instead".
func (s *Server) registerStreams() {
	m, p := s.api, apiPrefix
	if s.opts.Events != nil {
		s.route(m, "GET "+p+"/ws/events", s.handleEventStream)
	}
	s.route(m, "GET "+p+"/ws", s.handleLogStream)
	s.route(m, "GET "+p+"/ws/logs", s.handleLogStream)
	s.route(m, "GET "+p+"/ws/metrics", s.handleMetricsStream)
}

// sessionExpiry is when the request's admin token expires: the session ends then (WS-8).
func (s *Server) sessionExpiry(r *http.Request) time.Time {
	far := s.now().Add(100 * 365 * 24 * time.Hour)
	tok, err := bearerToken(r)
	if err != nil {
		return far
	}
	c, err := s.tokens.VerifyAdmin(tok)
	if err != nil || c.ExpiresAt == nil {
		return far
	}
	return c.ExpiresAt.Time
}

// handleEventStream serves GET /api/v1/ws/events (§1.2): nothing until the client sends
// a subscription; each valid one replaces the previous (EV-1), an empty one is ignored
// (EV-2), a bad one ends the session after a text frame saying why (EV-3).
func (s *Server) handleEventStream(w http.ResponseWriter, r *http.Request) error {
	if ok, err := s.checkWebsocket(w, r); !ok {
		return err
	}
	ws, ok := s.upgrade(w, r)
	if !ok {
		return nil
	}
	hub := s.opts.Events
	sub := hub.Subscribe()
	defer hub.Unsubscribe(sub)
	onMessage := func(msg []byte) string {
		want, err := events.ParseSubscription(msg)
		if err != nil {
			return err.Error()
		}
		if !want.Empty() {
			sub.Set(want)
		}
		return ""
	}
	s.runSession(r.Context(), ws, wsFrames{out: sub.C, done: sub.Done()}, s.sessionExpiry(r), onMessage)
	s.logSessionEnd(r, "events", sub.Dropped())
	return nil
}

// handleLogStream serves GET /api/v1/ws/logs and the legacy /api/v1/ws (§1.3): every log
// record from now on, one slog JSON line per text frame; client messages are ignored.
func (s *Server) handleLogStream(w http.ResponseWriter, r *http.Request) error {
	hub := s.opts.Logs
	if hub == nil {
		return invalid("log streamer is disabled")
	}
	if ok, err := s.checkWebsocket(w, r); !ok {
		return err
	}
	ws, ok := s.upgrade(w, r)
	if !ok {
		return nil
	}
	sub := hub.Subscribe()
	defer hub.Unsubscribe(sub)
	s.runSession(r.Context(), ws, wsFrames{out: sub.C}, s.sessionExpiry(r), nil)
	s.logSessionEnd(r, "logs", sub.Dropped())
	return nil
}

// handleMetricsStream serves GET /api/v1/ws/metrics (§1.4): a snapshot at once and then
// every MetricsInterval; client messages are ignored.
func (s *Server) handleMetricsStream(w http.ResponseWriter, r *http.Request) error {
	if ok, err := s.checkWebsocket(w, r); !ok {
		return err
	}
	ws, ok := s.upgrade(w, r)
	if !ok {
		return nil
	}
	interval := s.opts.MetricsInterval
	if interval <= 0 {
		interval = DefaultMetricsInterval
	}
	s.runSession(r.Context(), ws, wsFrames{tick: s.snapshotFrame, interval: interval}, s.sessionExpiry(r), nil)
	s.logSessionEnd(r, "metrics", 0)
	return nil
}

func (s *Server) logSessionEnd(r *http.Request, stream string, dropped uint64) {
	s.log.DebugContext(context.WithoutCancel(r.Context()), "websocket session ended", "stream", stream,
		"remote", r.RemoteAddr, "dropped", dropped)
}

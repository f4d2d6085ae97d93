package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/garrison-ci/garrison/internal/logstream"
	"github.com/gorilla/websocket"
)

// TestLogStreamGarmCLI: garm-cli debug-log connects to /api/v1/ws/logs (and older ones to
// /api/v1/ws), sends nothing, and gets each record logged from then on as one slog JSON
// line with a trailing newline, time in UTC (LS-2, LS-3). Client messages are ignored.
func TestLogStreamGarmCLI(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	for _, path := range []string{"/ws/logs", "/ws"} {
		t.Run(path, func(t *testing.T) {
			h.logger.Info("before the session", "n", 0)
			c := h.dialWS(t, api(path), tok)
			c.send(`{"anything":"is ignored"}`)
			c.sync()
			h.logger.With("pool_mgr", "acme/widgets").Debug("waiting for tools", "endpoint", "lab")
			h.logger.WithGroup("req").Warn("slow", "ms", 1500)
			var got []map[string]any
			for len(got) < 2 {
				f := c.next()
				if f.err != nil || f.kind != websocket.TextMessage || !strings.HasSuffix(string(f.data), "}\n") {
					t.Fatalf("frame %q (%v), want one JSON line ending in a newline", f.data, f.err)
				}
				var rec map[string]any
				if err := json.Unmarshal(f.data, &rec); err != nil {
					t.Fatal(err)
				}
				if rec["msg"] == "access_log" || rec["msg"] == "websocket session ended" {
					continue
				}
				got = append(got, rec)
			}
			first := got[0]
			if first["msg"] != "waiting for tools" || first["level"] != "DEBUG" || first["pool_mgr"] != "acme/widgets" ||
				first["endpoint"] != "lab" {
				t.Errorf("first record %v", first)
			}
			ts, _ := first["time"].(string)
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") {
				t.Errorf("time %q is not RFC 3339 in UTC", ts)
			}
			if req, _ := got[1]["req"].(map[string]any); got[1]["level"] != "WARN" || req["ms"] != 1500.0 {
				t.Errorf("second record %v, want the group as an object", got[1])
			}
		})
	}
}

// TestStreamSessionEndsWithToken: the server closes a session (1000) when its admin
// token expires (WS-8).
func TestStreamSessionEndsWithToken(t *testing.T) {
	h := newStreamHarness(t)
	h.ready()
	// A token minted "24 h minus 2 s ago" on the server's clock expires 2 s from now.
	h.clock.Add(-24*time.Hour + 2*time.Second)
	tok := h.login()
	c := h.dialWS(t, api("/ws/logs"), tok)
	for {
		f := c.next()
		if f.err == nil {
			continue // log records
		}
		if !websocket.IsCloseError(f.err, websocket.CloseNormalClosure) {
			t.Fatalf("session ended with %v, want close 1000", f.err)
		}
		return
	}
}

// TestStreamsCloseOnShutdown: CloseStreams ends open sessions with 1000 and later ones
// at once.
func TestStreamsCloseOnShutdown(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	var clients []*wsClient
	for _, p := range []string{"/ws/events", "/ws/logs", "/ws/metrics"} {
		clients = append(clients, h.dialWS(t, api(p), tok))
	}
	for _, c := range clients {
		c.sync()
	}
	h.api.CloseStreams()
	for i, c := range clients {
		for {
			f := c.next()
			if f.err == nil {
				continue
			}
			if !websocket.IsCloseError(f.err, websocket.CloseNormalClosure) {
				t.Errorf("client %d: %v, want close 1000", i, f.err)
			}
			break
		}
	}
}

// TestDeadClientsLeaveNoSubscription: a client that vanishes without a close frame
// stops being a subscriber: nothing is kept for it (no queue, no goroutine).
func TestDeadClientsLeaveNoSubscription(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	for range 5 {
		for _, p := range []string{"/ws/events", "/ws/logs"} {
			c := h.dialWS(t, api(p), tok)
			c.send(`{"send-everything":true}`)
			c.sync()
			c.conn.UnderlyingConn().Close() // no close frame: the peer is just gone
		}
	}
	h.logger.Info("a record the dead clients cannot take")
	for i := 0; h.logs.Active() || h.events.Active(); i++ {
		if i > 1000 {
			t.Fatalf("subscribers remain after their clients died: logs %v, events %v", h.logs.Active(), h.events.Active())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMetricsStream: garm-cli top gets a snapshot at once (MS-2) and every interval:
// entities with their pool counts, pools with runner counts by status, scale sets [].
func TestMetricsStream(t *testing.T) {
	h := newStreamHarness(t, func(o *httpapi.Options) { o.MetricsInterval = 50 * time.Millisecond })
	tok := h.ready()
	c := h.dialWS(t, api("/ws/metrics"), tok)
	if f := c.next(); f.err != nil || string(f.data) != `{"entities":[],"pools":[],"scale_sets":[]}` {
		t.Fatalf("empty controller snapshot %s (%v)", f.data, f.err)
	}
	h.newCredentials(tok, "gh")
	repo := h.newRepo(tok, "gh", "widgets")
	pool := h.newPool(tok, repo.ID)
	for {
		f := c.next()
		if f.err != nil {
			t.Fatal(f.err)
		}
		var snap struct {
			Entities []map[string]any `json:"entities"`
			Pools    []map[string]any `json:"pools"`
		}
		if err := json.Unmarshal(f.data, &snap); err != nil {
			t.Fatal(err)
		}
		if len(snap.Pools) == 0 {
			continue
		}
		e, p := snap.Entities[0], snap.Pools[0]
		if e["id"] != repo.ID || e["name"] != "acme/widgets" || e["type"] != "repository" || e["endpoint"] != "github.com" ||
			e["pool_count"] != 1.0 || e["scale_set_count"] != 0.0 {
			t.Errorf("entity %v", e)
		}
		if p["id"] != pool.ID || p["repo_name"] != "acme/widgets" || p["max_runners"] != 4.0 || p["provider_name"] != "lxd" {
			t.Errorf("pool %v", p)
		}
		if _, ok := p["org_name"]; ok {
			t.Errorf("pool %v carries another owner's key", p)
		}
		if rc, ok := p["runner_counts"].(map[string]any); !ok || len(rc) != 0 {
			t.Errorf("runner_counts %v, want {}", p["runner_counts"])
		}
		return
	}
}

// TestDroppedMetric: garrison_events_dropped_total counts, per stream, what the hubs
// dropped for slow clients.
func TestDroppedMetric(t *testing.T) {
	h := newStreamHarness(t)
	slow := h.logs.Subscribe() // never read
	defer h.logs.Unsubscribe(slow)
	for range logstream.SubscriberQueue + 7 {
		h.logger.Info("filler")
	}
	families, err := h.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "garrison_events_dropped_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			got[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	if got["logs"] != 7 || got["events"] != 0 || len(got) != 2 {
		t.Errorf("garrison_events_dropped_total = %v, want logs 7, events 0", got)
	}
}

// TestSlowClientDisconnected: a client that stops reading holds at most its bounded queue
// and the socket buffers; once a frame cannot be written within the write deadline the
// server ends the session, and the client is no longer a subscriber.
func TestSlowClientDisconnected(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.DialContext(t.Context(), h.wsURL(api("/ws/logs")), http.Header{"Authorization": {"Bearer " + tok}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close() // never read: the socket buffers fill up
	for i := 0; !h.logs.Active(); i++ {
		if i > 1000 {
			t.Fatal("the session never subscribed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	filler := strings.Repeat("x", 8<<10)
	for i := 0; h.logs.Active(); i++ {
		if i > 100000 {
			t.Fatal("the server kept a client that reads nothing")
		}
		h.logger.Info("filler", "data", filler) // never blocks, whatever the client does
		if i%100 == 99 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if h.logs.Dropped() == 0 {
		t.Error("nothing dropped for a client that read nothing")
	}
}

package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/events"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/garrison-ci/garrison/internal/logstream"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/gorilla/websocket"
)

// streamHarness is a harness whose store publishes to an event hub (as the server wires
// it) and whose logger copies to a log stream hub.
type streamHarness struct {
	*harness
	events *events.Hub
	logs   *logstream.Hub
	logger *slog.Logger
}

func newStreamHarness(t *testing.T, edit ...func(*httpapi.Options)) *streamHarness {
	t.Helper()
	sh := &streamHarness{events: events.NewHub(), logs: logstream.NewHub()}
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	sh.logger = slog.New(logstream.Handler(slog.NewTextHandler(io.Discard, opts), sh.logs, opts))
	open := func(tb testing.TB) store.Store { return events.Wrap(openSQLite(tb), sh.events) }
	edit = append([]func(*httpapi.Options){func(o *httpapi.Options) {
		o.Events, o.Logs, o.Logger = sh.events, sh.logs, sh.logger
	}}, edit...)
	sh.harness = newHarness(t, open, edit...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		sh.events.Run(ctx, sh.api.RenderChange, httpapi.ChangeFallback, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	return sh
}

// wsClient is a client shaped like garm-cli's reader (garm-provider-common's websocket
// reader on gorilla/websocket): it dials ws://<host><path> with "Authorization: Bearer",
// reads frames in the background, and answers the server's pings (gorilla's default).
type wsClient struct {
	t      *testing.T
	conn   *websocket.Conn
	frames chan frameOrErr
	pongs  chan struct{}
}

type frameOrErr struct {
	kind int
	data []byte
	err  error
}

// wsURL is the websocket URL of path on h's server.
func (h *harness) wsURL(path string) string {
	return "ws" + strings.TrimPrefix(h.srv.URL, "http") + path
}

// dialWS opens a session as garm-cli does and fails the test if the handshake fails.
func (h *harness) dialWS(t *testing.T, path, token string) *wsClient {
	t.Helper()
	c, resp, err := h.tryDialWS(t, path, http.Header{"Authorization": {"Bearer " + token}})
	if err != nil {
		t.Fatalf("dial %s: %v (%s)", path, err, resp)
	}
	return c
}

// tryDialWS dials with the given headers and returns the handshake's error answer.
func (h *harness) tryDialWS(t *testing.T, path string, header http.Header) (*wsClient, string, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.DialContext(t.Context(), h.wsURL(path), header)
	if err != nil {
		answer := ""
		if resp != nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answer = resp.Status + " " + resp.Header.Get("Content-Type") + " " + string(b)
		}
		return nil, answer, err
	}
	c := &wsClient{t: t, conn: conn, frames: make(chan frameOrErr, 4096), pongs: make(chan struct{}, 16)}
	conn.SetPongHandler(func(string) error { c.pongs <- struct{}{}; return nil })
	go c.readLoop()
	t.Cleanup(func() { conn.Close() })
	return c, "", nil
}

func (c *wsClient) readLoop() {
	for {
		kind, data, err := c.conn.ReadMessage()
		c.frames <- frameOrErr{kind, data, err}
		if err != nil {
			return
		}
	}
}

// send writes a text frame, as garm-cli sends its --filters.
func (c *wsClient) send(msg string) {
	c.t.Helper()
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		c.t.Fatal(err)
	}
}

// sync pings the server and waits for the pong: the server has handled every message
// sent before (its reader handles them in order) and its session is running.
func (c *wsClient) sync() {
	c.t.Helper()
	if err := c.conn.WriteControl(websocket.PingMessage, []byte("sync"), time.Now().Add(5*time.Second)); err != nil {
		c.t.Fatal(err)
	}
	select {
	case <-c.pongs:
	case <-time.After(10 * time.Second):
		c.t.Fatal("no pong from the server")
	}
}

// next returns the next frame, failing after a generous timeout.
func (c *wsClient) next() frameOrErr {
	c.t.Helper()
	select {
	case f := <-c.frames:
		return f
	case <-time.After(10 * time.Second):
		c.t.Fatal("no frame from the server")
	}
	return frameOrErr{}
}

// event is one decoded event frame.
type event struct {
	Type    string          `json:"entity-type"`
	Op      string          `json:"operation"`
	Payload json.RawMessage `json:"payload"`
	raw     []byte
}

// nextEvent reads the next frame as an event.
func (c *wsClient) nextEvent() event {
	c.t.Helper()
	f := c.next()
	if f.err != nil {
		c.t.Fatalf("reading an event: %v", f.err)
	}
	if f.kind != websocket.TextMessage {
		c.t.Fatalf("frame kind %d, want text", f.kind)
	}
	var ev event
	if err := json.Unmarshal(f.data, &ev); err != nil {
		c.t.Fatalf("event %s: %v", f.data, err)
	}
	ev.raw = f.data
	return ev
}

// payloadField returns a string field of the event's payload.
func (ev event) payloadField(t *testing.T, key string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(ev.Payload, &m); err != nil {
		t.Fatalf("payload %s: %v", ev.Payload, err)
	}
	s, _ := m[key].(string)
	return s
}

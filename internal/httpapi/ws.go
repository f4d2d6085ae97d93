package httpapi

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Websocket transport (streams-metrics.md WS-6, WS-7).
const (
	wsWriteWait    = 10 * time.Second // deadline of one frame
	wsPongWait     = 60 * time.Second // a client silent this long is gone
	wsPingPeriod   = wsPongWait * 9 / 10
	wsMaxMessage   = 1 << 20 // inbound message size limit
	wsCloseTimeout = time.Second
)

var wsUpgrader = websocket.Upgrader{
	ReadBufferSize:  4096,
	WriteBufferSize: 4096,
	// The origin is checked before the upgrade, with GARM's rules (wsOriginAllowed).
	CheckOrigin: func(*http.Request) bool { return true },
}

// wsSession is one open websocket: frames queued on out are written as text frames, and
// every text message the client sends goes to onMessage.
type wsSession struct {
	conn *websocket.Conn
	// fail carries a last text frame to send before closing (EV-3).
	fail chan string
}

// wsFrames is what a stream hands the session loop: frames to write, and a channel that
// is closed when the stream has ended (server shutdown).
type wsFrames struct {
	out  <-chan []byte
	done <-chan struct{}
	// tick, when not nil, is called every interval and at once; a frame it returns
	// is written (the metrics snapshot).
	tick     func(ctx context.Context) ([]byte, error)
	interval time.Duration
}

// checkWebsocket answers what GARM answers before an upgrade: 403 text "Forbidden" to a
// foreign Origin (WS-4), 400 to a request that is not a websocket handshake (WS-5).
func (s *Server) checkWebsocket(w http.ResponseWriter, r *http.Request) (bool, error) {
	if !s.wsOriginAllowed(r) {
		http.Error(w, "Forbidden", http.StatusForbidden)
		return false, nil
	}
	if !websocket.IsWebSocketUpgrade(r) {
		return false, invalid("this route takes a websocket connection (Upgrade: websocket)")
	}
	return true, nil
}

// wsOriginAllowed applies WS-4: no Origin is fine; else its host must be one of the
// configured CORS origins' hosts (or the list has "*"), or, with no list, this host.
func (s *Server) wsOriginAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if len(s.opts.CORSOrigins) == 0 {
		return strings.EqualFold(u.Host, r.Host)
	}
	return slices.ContainsFunc(s.opts.CORSOrigins, func(o string) bool {
		if o == "*" {
			return true
		}
		ou, err := url.Parse(o)
		return err == nil && ou.Host != "" && strings.EqualFold(ou.Host, u.Host)
	})
}

// hijackable gives the upgrader the connection under the middleware's writer wrappers.
type hijackable struct{ http.ResponseWriter }

func (h hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(h.ResponseWriter).Hijack()
}

// upgrade switches r to a websocket; on failure the upgrader has answered already.
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) (*wsSession, bool) {
	conn, err := wsUpgrader.Upgrade(hijackable{w}, r, nil)
	if err != nil {
		s.log.DebugContext(r.Context(), "websocket upgrade failed", "path", r.URL.Path, "err", err)
		return nil, false
	}
	return &wsSession{conn: conn, fail: make(chan string, 1)}, true
}

// run serves the session until the client goes, a write fails, the token expires at
// expires, the stream ends or the server stops; then it closes with 1000. Text messages
// from the client go to onMessage (nil: read and ignored, LS-4, MS-3); a non-empty text
// it returns is sent and then the session closes (EV-3).
func (s *Server) runSession(ctx context.Context, ws *wsSession, f wsFrames, expires time.Time, onMessage func([]byte) string) {
	defer ws.conn.Close()
	gone := make(chan struct{})
	go ws.read(gone, onMessage)
	ping := time.NewTicker(wsPingPeriod)
	defer ping.Stop()
	expiry := time.NewTimer(time.Until(expires))
	defer expiry.Stop()
	var tick <-chan time.Time
	if f.tick != nil {
		t := time.NewTicker(f.interval)
		defer t.Stop()
		tick = t.C
		if !ws.sendTick(ctx, f.tick) {
			return
		}
	}
	for {
		select {
		case b := <-f.out:
			if ws.write(websocket.TextMessage, b) != nil {
				return
			}
		case <-tick:
			if !ws.sendTick(ctx, f.tick) {
				return
			}
		case <-ping.C:
			if ws.write(websocket.PingMessage, nil) != nil {
				return
			}
		case text := <-ws.fail:
			_ = ws.write(websocket.TextMessage, []byte(text))
			ws.close()
			return
		case <-gone:
			select {
			case text := <-ws.fail: // the reader stopped on a bad message
				_ = ws.write(websocket.TextMessage, []byte(text))
				ws.close()
			default:
			}
			return
		case <-expiry.C:
			ws.close()
			return
		case <-f.done:
			ws.close()
			return
		case <-s.streamsDone:
			ws.close()
			return
		}
	}
}

func (ws *wsSession) sendTick(ctx context.Context, tick func(context.Context) ([]byte, error)) bool {
	b, err := tick(ctx)
	if err != nil {
		return true // skip this tick; the next one may succeed
	}
	return ws.write(websocket.TextMessage, b) == nil
}

func (ws *wsSession) write(kind int, b []byte) error {
	if err := ws.conn.SetWriteDeadline(time.Now().Add(wsWriteWait)); err != nil {
		return err
	}
	return ws.conn.WriteMessage(kind, b)
}

// close sends a normal closure (1000).
func (ws *wsSession) close() {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	_ = ws.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(wsCloseTimeout))
}

// read reads client messages until the connection fails or stays silent past
// wsPongWait; pings and pongs keep it alive. It closes gone when it stops.
func (ws *wsSession) read(gone chan<- struct{}, onMessage func([]byte) string) {
	defer close(gone)
	c := ws.conn
	c.SetReadLimit(wsMaxMessage)
	alive := func() { _ = c.SetReadDeadline(time.Now().Add(wsPongWait)) }
	alive()
	c.SetPongHandler(func(string) error { alive(); return nil })
	c.SetPingHandler(func(data string) error {
		alive()
		err := c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(wsWriteWait))
		if err == websocket.ErrCloseSent {
			return nil
		}
		return err
	})
	for {
		kind, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		alive()
		if kind != websocket.TextMessage || onMessage == nil {
			continue
		}
		if text := onMessage(msg); text != "" {
			ws.fail <- text
			return
		}
	}
}

package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// wsServer is a fake server of one websocket stream: it checks the bearer token,
// records the text frames the client sends, writes frames and then closes with 1000.
type wsServer struct {
	srv *httptest.Server

	mu   sync.Mutex // guards got and path
	got  []string
	path string
}

// newWSServer answers every upgrade on any path with frames, after reading wantMsgs
// client messages.
func newWSServer(t *testing.T, wantMsgs int, frames ...string) *wsServer {
	t.Helper()
	ws := &wsServer{}
	up := websocket.Upgrader{}
	ws.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"Authentication failed","details":""}`))
			return
		}
		if strings.HasSuffix(r.URL.Path, "/ws/logs") && len(frames) == 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"Bad Request","details":"log streamer is disabled"}`))
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		ws.mu.Lock()
		ws.path = r.URL.Path
		ws.mu.Unlock()
		for range wantMsgs {
			_, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			ws.mu.Lock()
			ws.got = append(ws.got, string(msg))
			ws.mu.Unlock()
		}
		for _, f := range frames {
			c.WriteMessage(websocket.TextMessage, []byte(f))
		}
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.ReadMessage() // wait for the client's close
	}))
	t.Cleanup(ws.srv.Close)
	return ws
}

func (ws *wsServer) seen() (string, []string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.path, append([]string(nil), ws.got...)
}

// profileFor saves an active profile for a websocket server.
func (e *env) profileFor(t *testing.T, ws *wsServer) *env {
	t.Helper()
	return e.withProfile(t, &fakeServer{srv: ws.srv})
}

func TestEventsCommand(t *testing.T) {
	ev1 := `{"entity-type":"pool","operation":"create","payload":{"id":"p1"}}`
	ev2 := `{"entity-type":"pool","operation":"delete","payload":{"id":"p1"}}`
	tests := []struct {
		name string
		args []string
		sent string
	}{
		{"everything", nil, `{"send-everything":true}`},
		{"types and ops", []string{"--type", "pool,instance", "--operation", "create"},
			`{"filters":[{"entity-type":"pool","operations":["create"]},{"entity-type":"instance","operations":["create"]}]}`},
		{"garm-cli filters verbatim", []string{"--filters", `{"filters":[{"entity-type":"job"}]}`}, `{"filters":[{"entity-type":"job"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWSServer(t, 1, ev1, ev2)
			e := newEnv(t).profileFor(t, ws)
			out, _, err := e.run(t, append([]string{"events"}, tt.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if out != ev1+"\n"+ev2+"\n" {
				t.Errorf("output %q", out)
			}
			path, got := ws.seen()
			if path != "/api/v1/ws/events" || len(got) != 1 || got[0] != tt.sent {
				t.Errorf("server saw %s %q, want %q", path, got, tt.sent)
			}
		})
	}
}

func TestEventsCommandErrors(t *testing.T) {
	ws := newWSServer(t, 1, "invalid filter: unknown entity-type \"runner\"")
	e := newEnv(t).profileFor(t, ws)
	if _, _, err := e.run(t, "debug-events", "--type", "runner"); err == nil || !strings.Contains(err.Error(), "invalid filter") {
		t.Errorf("refused subscription: %v", err)
	}
	for _, args := range [][]string{{"--filters", "{not json"}, {"--operation", "create"}, {"--filters", "{}", "--type", "pool"}} {
		if _, _, err := e.run(t, append([]string{"events"}, args...)...); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	bad := newEnv(t).profileFor(t, ws)
	a := &app{opts: bad.options()}
	s, _ := a.store()
	p, _ := s.profile("")
	p.Token = "expired"
	s.put(p)
	s.save()
	if _, _, err := bad.run(t, "events"); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "Authentication failed") {
		t.Errorf("bad token: %v", err)
	}
}

func TestLogsCommand(t *testing.T) {
	recs := []string{
		`{"time":"2026-11-24T12:21:13.804508602Z","level":"DEBUG","msg":"waiting for tools","pool_mgr":"acme/widgets"}` + "\n",
		`{"time":"2026-11-24T12:21:14Z","level":"INFO","msg":"access_log","code":200,"uri":"/api/v1/pools"}` + "\n",
		`{"time":"2026-11-24T12:21:15Z","level":"ERROR","msg":"provider failed","pool_mgr":"acme/widgets","err":"exit status 1"}` + "\n",
		"not json at all",
	}
	tests := []struct {
		name string
		args []string
		want []string // substrings of the lines, in order
	}{
		{"all", nil, []string{"[DEBUG] waiting for tools pool_mgr=acme/widgets", "[INFO] access_log code=200", `[ERROR] provider failed err="exit status 1"`, "not json at all"}},
		{"level", []string{"--log-level", "info"}, []string{"[INFO] access_log", "[ERROR] provider failed", "not json at all"}},
		{"filter all", []string{"--filter", "pool_mgr=acme/widgets", "--filter", "msg=provider"}, []string{"[ERROR] provider failed", "not json at all"}},
		{"filter any", []string{"--filter", "code=200", "--filter", "msg=waiting", "--filter-mode", "any"}, []string{"[DEBUG] waiting", "[INFO] access_log", "not json at all"}},
		{"raw", []string{"--raw", "--log-level", "error"}, []string{strings.TrimSpace(recs[2]), "not json at all"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWSServer(t, 0, recs...)
			e := newEnv(t).profileFor(t, ws)
			out, _, err := e.run(t, append([]string{"logs"}, tt.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("output %q, want %d lines", out, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("line %d %q does not contain %q", i, lines[i], w)
				}
			}
			if path, _ := ws.seen(); path != "/api/v1/ws/logs" {
				t.Errorf("path %s", path)
			}
		})
	}
}

func TestLogsCommandErrors(t *testing.T) {
	disabled := newWSServer(t, 0)
	e := newEnv(t).profileFor(t, disabled)
	if _, _, err := e.run(t, "debug-log"); err == nil || err.Error() != "failed to stream logs: log streamer is disabled" {
		t.Errorf("disabled streamer: %v", err)
	}
	for _, args := range [][]string{{"--log-level", "loud"}, {"--filter", "novalue"}, {"--filter", "=x"}, {"--filter-mode", "some"}} {
		if _, _, err := e.run(t, append([]string{"logs"}, args...)...); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

func TestTopCommand(t *testing.T) {
	snap := `{"entities":[{"id":"e1","name":"acme/widgets","type":"repository","endpoint":"github.com","pool_count":1,"scale_set_count":0,"healthy":true}],` +
		`"pools":[{"id":"p1","provider_name":"lxd","os_type":"linux","max_runners":4,"enabled":true,"repo_name":"acme/widgets",` +
		`"runner_counts":{"running":2,"pending_create":1},"runner_status_counts":{"idle":1,"active":1}}],"scale_sets":[]}`
	ws := newWSServer(t, 0, snap, snap)
	e := newEnv(t).profileFor(t, ws)
	out, _, err := e.run(t, "top", "--once")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"repository  acme/widgets  github.com  1      healthy", "p1    acme/widgets  lxd       true     3/4",
		"pending_create=1 running=2", "active=1 idle=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if path, _ := ws.seen(); path != "/api/v1/ws/metrics" {
		t.Errorf("path %s", path)
	}
	out, _, err = e.run(t, "top")
	if err != nil || strings.Count(out, "POOL MANAGER") != 2 {
		t.Errorf("streaming top: %v\n%s", err, out)
	}
	out, _, err = e.run(t, "top", "--once", "--format", "json")
	if err != nil || !strings.Contains(out, `"runner_counts"`) {
		t.Errorf("json: %v %s", err, out)
	}
}

// FuzzLogFormat: whatever the server sends, formatting a log frame never panics and
// prints at most one line per frame.
func FuzzLogFormat(f *testing.F) {
	f.Add([]byte(`{"time":"2026-11-24T12:21:13.804508602Z","level":"DEBUG","msg":"m","k":{"a":[1,2]}}`), "msg=m")
	f.Add([]byte(`{"level":7,"msg":null}`), "level=7")
	f.Add([]byte(`null`), "")
	f.Add([]byte("plain\ntext"), "a=b")
	f.Fuzz(func(t *testing.T, frame []byte, filter string) {
		lf, err := newLogFilter("", []string{filter}, "any")
		if err != nil {
			lf, _ = newLogFilter("", nil, "all")
		}
		line, ok := lf.format(frame, false)
		if ok && !strings.HasSuffix(line, "\n") {
			t.Fatalf("line %q has no newline", line)
		}
	})
}

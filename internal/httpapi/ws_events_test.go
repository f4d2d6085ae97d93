package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/gorilla/websocket"
)

// topFilters is the subscription garm-cli top sends (streams-metrics.md §1.5).
const topFilters = `{"filters":[{"entity-type":"repository"},{"entity-type":"organization"},` +
	`{"entity-type":"enterprise"},{"entity-type":"forge_instance"},{"entity-type":"pool"},` +
	`{"entity-type":"scaleset"},{"entity-type":"instance"},{"entity-type":"job"},{"entity-type":"controller"}]}`

// newCredentials creates PAT credentials on github.com.
func (h *harness) newCredentials(tok, name string) apiv1.ForgeCredentials {
	h.t.Helper()
	var c apiv1.ForgeCredentials
	h.expect(h.call("POST", api("/github/credentials"), tok, map[string]any{
		"name": name, "endpoint": "github.com", "auth_type": "pat",
		"pat": map[string]any{"oauth2_token": "ghp_secret_" + name}}), 200, &c)
	return c
}

// newRepo creates repository acme/<name> on the credentials.
func (h *harness) newRepo(tok, creds, name string) apiv1.Repository {
	h.t.Helper()
	var r apiv1.Repository
	h.expect(h.call("POST", api("/repositories"), tok, map[string]any{
		"owner": "acme", "name": name, "credentials_name": creds,
		"webhook_secret": "0123456789abcdef0123456789abcdef"}), 200, &r)
	return r
}

// newPool creates a pool on the repository.
func (h *harness) newPool(tok, repoID string) apiv1.Pool {
	h.t.Helper()
	var p apiv1.Pool
	h.expect(h.call("POST", api("/repositories/"+repoID+"/pools"), tok, map[string]any{
		"provider_name": "lxd", "max_runners": 4, "image": "ubuntu:24.04", "flavor": "small",
		"os_type": "linux", "os_arch": "amd64", "tags": []string{"x64"}}), 200, &p)
	return p
}

// TestEventStreamGarmCLITop: a client shaped like garm-cli top subscribes with top's
// filters and sees the create, update and delete of a pool and a repository made through
// the REST API, in order, each as one compact frame holding the REST shape.
func TestEventStreamGarmCLITop(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	h.newCredentials(tok, "gh")
	c := h.dialWS(t, api("/ws/events"), tok)
	c.send(topFilters)
	c.sync()

	repo := h.newRepo(tok, "gh", "widgets")
	pool := h.newPool(tok, repo.ID)
	h.expect(h.call("PUT", api("/pools/"+pool.ID), tok, map[string]any{"enabled": true, "max_runners": 7}), 200, nil)
	h.expect(h.call("DELETE", api("/pools/"+pool.ID), tok, nil), 200, nil)
	h.expect(h.call("DELETE", api("/repositories/"+repo.ID), tok, nil), 200, nil)

	want := []string{"repository create " + repo.ID, "pool create " + pool.ID, "pool update " + pool.ID,
		"pool delete " + pool.ID, "repository delete " + repo.ID}
	var got []string
	for len(got) < len(want) {
		ev := c.nextEvent()
		if strings.HasSuffix(string(ev.raw), "\n") || strings.Contains(string(ev.raw), "\n") {
			t.Errorf("frame %q is not one compact JSON document", ev.raw)
		}
		requireKeys(t, keys(t, ev.raw), "entity-type", "operation", "payload")
		if ev.Type == "repository" && ev.Op == "update" {
			continue // entity updates (pool manager status, events) may interleave
		}
		got = append(got, fmt.Sprintf("%s %s %s", ev.Type, ev.Op, ev.payloadField(t, "id")))
		checkPayload(t, ev)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}

// checkPayload checks that an event's payload decodes into the REST shape of its type.
func checkPayload(t *testing.T, ev event) {
	t.Helper()
	switch ev.Type {
	case "pool":
		var p apiv1.Pool
		if err := json.Unmarshal(ev.Payload, &p); err != nil || p.RepoName != "acme/widgets" || p.ProviderName != "lxd" {
			t.Errorf("pool payload %s: %v", ev.Payload, err)
		}
		if ev.Op == "update" && (!p.Enabled || p.MaxRunners != 7) {
			t.Errorf("pool update payload %s does not show the update", ev.Payload)
		}
	case "repository":
		var r apiv1.Repository
		if err := json.Unmarshal(ev.Payload, &r); err != nil || r.Owner != "acme" || r.Name != "widgets" ||
			r.CredentialsName != "gh" {
			t.Errorf("repository payload %s: %v", ev.Payload, err)
		}
		if strings.Contains(string(ev.Payload), "ghp_secret") || strings.Contains(string(ev.Payload), "0123456789abcdef") {
			t.Errorf("repository payload %s carries a secret", ev.Payload)
		}
	}
}

// TestEventSubscriptionRules: a session gets nothing before it subscribes; a second
// subscription replaces the first (EV-1); an empty one is ignored (EV-2); operations
// narrow a filter; send-everything sends every type.
func TestEventSubscriptionRules(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	h.newCredentials(tok, "gh")
	repo := h.newRepo(tok, "gh", "widgets")
	pool := h.newPool(tok, repo.ID)
	updatePool := func(n int) {
		h.expect(h.call("PUT", api("/pools/"+pool.ID), tok, map[string]any{"max_runners": n}), 200, nil)
	}
	updateRepo := func(desc string) {
		h.expect(h.call("PUT", api("/repositories/"+repo.ID), tok, map[string]any{"pool_balancer_type": desc}), 200, nil)
	}
	c := h.dialWS(t, api("/ws/events"), tok)

	// Nothing before a subscription: the first event is the one after subscribing.
	updatePool(2)
	c.send(`{"send-everything":false,"filters":[{"entity-type":"pool","operations":["update"]}]}`)
	c.sync()
	updatePool(3)
	if ev := c.nextEvent(); ev.Type != "pool" || ev.Op != "update" || !strings.Contains(string(ev.Payload), `"max_runners":3`) {
		t.Fatalf("first event %s, want the pool update to 3", ev.raw)
	}

	// Replace: repository only. The pool update that follows is not sent.
	c.send(`{"filters":[{"entity-type":"repository","operations":["update"]}],"unknown-key":1}`)
	c.sync()
	updatePool(4)
	updateRepo("pack")
	if ev := c.nextEvent(); ev.Type != "repository" {
		t.Fatalf("after replacing the subscription got %s, want the repository update", ev.raw)
	}

	// Empty subscriptions keep the previous one (EV-2).
	for _, msg := range []string{`{}`, `{"send-everything":false}`, `{"filters":[]}`, `null`} {
		c.send(msg)
	}
	c.sync()
	updatePool(5)
	updateRepo("roundrobin")
	if ev := c.nextEvent(); ev.Type != "repository" {
		t.Fatalf("after empty subscriptions got %s, want the repository update", ev.raw)
	}

	// Operations narrow: a pool create/delete filter skips the update.
	c.send(`{"filters":[{"entity-type":"pool","operations":["delete"]}]}`)
	c.sync()
	updatePool(6)
	h.expect(h.call("DELETE", api("/pools/"+pool.ID), tok, nil), 200, nil)
	if ev := c.nextEvent(); ev.Type != "pool" || ev.Op != "delete" || ev.payloadField(t, "id") != pool.ID {
		t.Fatalf("got %s, want the pool delete", ev.raw)
	}

	// send-everything: filters are ignored.
	c.send(`{"send-everything":true,"filters":[{"entity-type":"pool"}]}`)
	c.sync()
	updateRepo("pack")
	if ev := c.nextEvent(); ev.Type != "repository" || ev.Op != "update" {
		t.Fatalf("send-everything got %s, want the repository update", ev.raw)
	}
}

// TestEventStreamBadSubscription: a message that is not a valid subscription gets a text
// frame saying why, then a normal closure (EV-3).
func TestEventStreamBadSubscription(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	tests := []struct{ msg, text string }{
		{`not json`, "failed to unmarshal filter"},
		{`{"filters":[{"operations":["create"]}]}`, "invalid filter"},
		{`{"filters":[{"entity-type":"runner"}]}`, "invalid filter"},
		{`{"filters":[{"entity-type":"pool","operations":["upsert"]}]}`, "invalid filter"},
		{`{"send-everything":"yes"}`, "failed to unmarshal filter"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			c := h.dialWS(t, api("/ws/events"), tok)
			c.send(tt.msg)
			f := c.next()
			if f.err != nil || f.kind != websocket.TextMessage || !strings.HasPrefix(string(f.data), tt.text) {
				t.Fatalf("first frame %q (%v), want text starting %q", f.data, f.err, tt.text)
			}
			f = c.next()
			if !websocket.IsCloseError(f.err, websocket.CloseNormalClosure) {
				t.Fatalf("then %v, want close 1000", f.err)
			}
		})
	}
}

// TestStreamHandshake: the answers before the upgrade (WS-2 .. WS-5, WS-12, LS-1) on every
// websocket route.
func TestStreamHandshake(t *testing.T) {
	h := newStreamHarness(t)
	tok := h.ready()
	bearer := http.Header{"Authorization": {"Bearer " + tok}}
	with := func(k, v string) http.Header {
		hd := bearer.Clone()
		hd.Set(k, v)
		return hd
	}
	for _, path := range []string{"/ws/events", "/ws/events/", "/ws/logs", "/ws/logs/", "/ws", "/ws/", "/ws/metrics", "/ws/metrics/"} {
		t.Run(path, func(t *testing.T) {
			tests := []struct {
				name   string
				path   string
				header http.Header
				want   string // "" when the session opens
			}{
				{"bearer", path, bearer, ""},
				{"cookie", path, http.Header{"Cookie": {"garm_token=" + tok}}, ""},
				// With cors_origins set, only their hosts pass (WS-4), not this host.
				{"same origin, not configured", path, with("Origin", h.srv.URL), "403 Forbidden"},
				{"configured origin", path, with("Origin", "https://UI.example.com"), ""},
				{"no token", path, nil, `401 Unauthorized application/json {"error":"Authentication failed","details":""}`},
				{"query token", path + "?token=" + tok, nil, "401 Unauthorized"},
				{"bad token", path, http.Header{"Authorization": {"Bearer x.y.z"}}, "401 Unauthorized"},
				{"foreign origin", path, with("Origin", "https://evil.example.com"), "403 Forbidden text/plain; charset=utf-8 Forbidden\n"},
			}
			for _, tt := range tests {
				c, answer, err := h.tryDialWS(t, api(tt.path), tt.header)
				switch {
				case tt.want == "" && err != nil:
					t.Errorf("%s: %v (%s)", tt.name, err, answer)
				case tt.want != "" && (err == nil || !strings.HasPrefix(answer, tt.want)):
					t.Errorf("%s: answer %q (%v), want %q", tt.name, answer, err, tt.want)
				}
				if c != nil {
					c.conn.Close()
				}
			}
			// A plain GET is not a websocket handshake.
			r := h.call("GET", api(path), tok, nil)
			h.expectError(r, 400, "Bad Request", "this route takes a websocket connection (Upgrade: websocket)")
		})
	}
}

// TestLogStreamDisabled: without a log hub the log routes answer LS-1's 400 after auth.
func TestLogStreamDisabled(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	for _, p := range []string{"/ws/logs", "/ws"} {
		_, answer, err := h.tryDialWS(t, api(p), http.Header{"Authorization": {"Bearer " + tok}})
		want := `400 Bad Request application/json {"error":"Bad Request","details":"log streamer is disabled"}`
		if err == nil || !strings.HasPrefix(answer, want) {
			t.Errorf("%s: %q (%v), want %q", p, answer, err, want)
		}
		h.expectError(h.call("GET", api(p), "", nil), 401, "Authentication failed", "")
	}
	// Without an event hub the event route is absent (the web UI polls instead).
	h.expectError(h.call("GET", api("/ws/events"), tok, nil), 404, "Not found", "Resource not found")
}

// TestStreamOriginWithoutCORS: without cors_origins a browser's Origin must name this
// host (WS-4): the web UI served by garrison itself opens the stream, another site not.
func TestStreamOriginWithoutCORS(t *testing.T) {
	h := newStreamHarness(t, func(o *httpapi.Options) { o.CORSOrigins = nil })
	tok := h.ready()
	cookie := func(origin string) http.Header {
		return http.Header{"Cookie": {"garm_token=" + tok}, "Origin": {origin}}
	}
	if _, answer, err := h.tryDialWS(t, api("/ws/events"), cookie(h.srv.URL)); err != nil {
		t.Errorf("same origin: %v (%s)", err, answer)
	}
	if _, answer, err := h.tryDialWS(t, api("/ws/events"), cookie("https://ui.example.com")); err == nil ||
		!strings.HasPrefix(answer, "403 Forbidden") {
		t.Errorf("foreign origin: %q (%v), want 403", answer, err)
	}
}

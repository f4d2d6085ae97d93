package instanceapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/garrison-ci/garrison"
)

const statusPath = CallbackPrefix + "/status"

func TestStatusTransitions(t *testing.T) {
	all := []garrison.RunnerStatus{garrison.RunnerPending, garrison.RunnerInstalling, garrison.RunnerIdle,
		garrison.RunnerActive, garrison.RunnerFailed, garrison.RunnerOffline, garrison.RunnerOnline,
		garrison.RunnerTerminated, garrison.RunnerUnknown, "bogus"}
	allowed := map[garrison.RunnerStatus][]garrison.RunnerStatus{ // CB-5
		garrison.RunnerPending:    {garrison.RunnerPending, garrison.RunnerInstalling, garrison.RunnerFailed, garrison.RunnerTerminated, garrison.RunnerActive},
		garrison.RunnerInstalling: {garrison.RunnerInstalling, garrison.RunnerIdle, garrison.RunnerFailed, garrison.RunnerTerminated, garrison.RunnerActive, garrison.RunnerOffline},
	}
	e := newEnv(t, envConfig{})
	n := 0
	for from, targets := range allowed {
		for _, to := range all {
			ok := false
			for _, a := range targets {
				ok = ok || a == to
			}
			n++
			name := fmt.Sprintf("garm-t%02d", n)
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				_, tok := e.addInstance(name, func(i *garrison.Instance) { i.RunnerStatus = from })
				r := e.do("POST", statusPath, tok, `{"status":"`+string(to)+`","message":"m"}`)
				got := e.instance(name)
				if ok {
					r.want(t, 200, "application/json", "")
					if got.RunnerStatus != to {
						t.Fatalf("runner status %s, want %s", got.RunnerStatus, to)
					}
					return
				}
				r.want(t, 400, "application/json",
					`{"error":"Bad Request","details":"invalid runner status transition from `+string(from)+` to `+string(to)+`"}`)
				if got.RunnerStatus != from {
					t.Fatalf("runner status changed to %s", got.RunnerStatus)
				}
				last := got.StatusMessages[len(got.StatusMessages)-1]
				if last.Level != garrison.LevelError || last.Type != garrison.EventStatus {
					t.Fatalf("rejected message recorded as %+v", last)
				}
			})
		}
	}
}

func TestStatusCallback(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	// CB-7: curl -d sends a form content type; the body is JSON all the same.
	e.doAuth("POST", statusPath+"/", "Bearer "+tok, `{"status":"installing","message":"downloading runner","extra":1}`,
		"application/x-www-form-urlencoded").want(t, 200, "application/json", "")
	i := e.instance("garm-a")
	last := i.StatusMessages[len(i.StatusMessages)-1]
	if i.RunnerStatus != garrison.RunnerInstalling || last.Message != "downloading runner" ||
		last.Type != garrison.EventStatus || last.Level != garrison.LevelInfo || !last.CreatedAt.Equal(epoch) {
		t.Fatalf("instance %s, last message %+v", i.RunnerStatus, last)
	}
	if len(e.notified) != 1 || e.notified[0] != e.pool.ID {
		t.Fatalf("notified %v", e.notified)
	}
	// A message alone changes nothing and notifies nobody.
	e.do("POST", statusPath, tok, `{"message":"still going","agent_id":null}`).want(t, 200, "application/json", "")
	if len(e.notified) != 1 {
		t.Fatalf("notified %v", e.notified)
	}
	e.do("POST", statusPath, tok, `not json`).want(t, 400, "application/json", `{"error":"Bad Request","details":"invalid request"}`)
	e.do("POST", statusPath, tok, `{"status":5}`).want(t, 400, "application/json", `{"error":"Bad Request","details":"invalid request"}`)
	e.do("POST", statusPath, tok, `{"status":"installing","agent_id":17}`).want(t, 200, "application/json", "")
	e.do("POST", statusPath, tok, `{"status":"idle","agent_id":18}`).want(t, 400, "application/json", `{"error":"Bad Request","details":"agent ID mismatch"}`)
	e.do("POST", statusPath, tok, `{"status":"idle","agent_id":17,"message":"runner successfully installed"}`).want(t, 200, "application/json", "")
	if i := e.instance("garm-a"); i.AgentID != 17 || i.RunnerStatus != garrison.RunnerIdle {
		t.Fatalf("agent %d status %s", i.AgentID, i.RunnerStatus)
	}
}

// CB-8: a runner may report idle while the provider's create call is still running; the
// later creating -> running update of the provider keeps the runner status.
func TestStatusIdleWhileCreating(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	e.do("POST", statusPath, tok, `{"status":"installing"}`).want(t, 200, "application/json", "")
	e.do("POST", statusPath, tok, `{"status":"idle","agent_id":null}`).want(t, 200, "application/json", "")
	i := e.setInstance("garm-a", func(i *garrison.Instance) {
		if !i.Status.CanTransition(garrison.InstanceRunning) {
			t.Fatalf("creating -> running refused")
		}
		i.Status = garrison.InstanceRunning
	})
	if i.Status != garrison.InstanceRunning || i.RunnerStatus != garrison.RunnerIdle {
		t.Fatalf("status %s runner %s", i.Status, i.RunnerStatus)
	}
}

func TestSystemInfo(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", func(i *garrison.Instance) { i.AgentID = 5 })
	p := CallbackPrefix + "/system-info/"
	e.do("POST", p, tok, `{}`).want(t, 200, "application/json", "")
	e.do("POST", p, tok, `{"os_name":"Ubuntu","os_version":"24.04","agent_id":null}`).want(t, 200, "application/json", "")
	e.do("POST", p, tok, `{"os_name":"Debian","agent_id":6}`).want(t, 400, "application/json", `{"error":"Bad Request","details":"agent ID mismatch"}`)
	e.do("POST", p, tok, `{"os_name":`).want(t, 400, "application/json", `{"error":"Bad Request","details":"invalid request"}`)
	if i := e.instance("garm-a"); i.OSName != "Ubuntu" || i.OSVersion != "24.04" || i.AgentID != 5 {
		t.Fatalf("instance %+v", i)
	}
}

// TestStatusMessageLimits: a runner's messages are cut to MaxEventMessageBytes (at a
// UTF-8 boundary, with a marker), a refused update keeps its reason, and only the newest
// MaxStatusMessages are kept.
func TestStatusMessageLimits(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	huge := strings.Repeat("é", 450_000) // 900 kB, under the body cap
	body := func(status, msg string) string {
		raw, err := json.Marshal(map[string]string{"status": status, "message": msg})
		must(t, err)
		return string(raw)
	}
	last := func() garrison.Event {
		msgs := e.instance("garm-a").StatusMessages
		return msgs[len(msgs)-1]
	}
	checkCut := func(what, msg, suffix string) {
		t.Helper()
		if len(msg) > garrison.MaxEventMessageBytes || !utf8.ValidString(msg) || !strings.HasSuffix(msg, suffix) {
			t.Fatalf("%s: %d bytes, ends %q; want at most %d bytes of UTF-8 ending %q", what, len(msg),
				msg[max(len(msg)-80, 0):], garrison.MaxEventMessageBytes, suffix)
		}
		kept := strings.TrimSuffix(strings.TrimSuffix(msg, suffix), garrison.TruncatedMarker)
		if !strings.HasPrefix(huge, kept) || len(kept) < garrison.MaxEventMessageBytes/2 {
			t.Fatalf("%s: kept %d bytes that do not start the message", what, len(kept))
		}
	}

	e.do("POST", statusPath, tok, body("installing", huge)).want(t, 200, "application/json", "")
	checkCut("accepted", last().Message, garrison.TruncatedMarker)

	e.do("POST", statusPath, tok, body("pending", huge)).want(t, 400, "application/json", "*")
	rejected := last()
	checkCut("rejected", rejected.Message, garrison.TruncatedMarker+" (rejected: invalid runner status transition from installing to pending)")
	if rejected.Level != garrison.LevelError {
		t.Fatalf("rejected message level %s", rejected.Level)
	}

	for k := range garrison.MaxStatusMessages + 5 {
		e.do("POST", statusPath, tok, body("", fmt.Sprint("step ", k))).want(t, 200, "application/json", "")
	}
	msgs := e.instance("garm-a").StatusMessages
	if len(msgs) != garrison.MaxStatusMessages || msgs[0].Message != "step 5" {
		t.Fatalf("kept %d messages starting %q, want %d starting \"step 5\"", len(msgs), msgs[0].Message, garrison.MaxStatusMessages)
	}
}

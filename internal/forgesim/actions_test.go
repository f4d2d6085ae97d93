package forgesim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// remoteAuth calls runner-registration with a registration token.
func remoteAuth(t *testing.T, url, token string, body any) (*http.Response, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Authorization", "RemoteAuth "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	return resp, out.Bytes()
}

// adminSession does the bootstrap for organization acme and returns the service URL
// and admin token.
func adminSession(t *testing.T, s *Sim, url string) (string, string) {
	t.Helper()
	resp, body := remoteAuth(t, url+"/api/v3/actions/runner-registration", regToken(t, s, "orgs/acme"),
		map[string]string{"url": url + "/acme", "runner_event": "register"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("runner-registration: %d %s", resp.StatusCode, body)
	}
	var conn struct{ URL, Token string }
	if err := json.Unmarshal(body, &conn); err != nil {
		t.Fatal(err)
	}
	return conn.URL, conn.Token
}

func TestRunnerRegistration(t *testing.T) {
	s, url := newSim(t, Options{})
	tok := regToken(t, s, "orgs/acme")
	good := map[string]string{"url": url + "/acme", "runner_event": "register"}
	for _, path := range []string{"/actions/runner-registration", "/api/v3/actions/runner-registration"} {
		resp, body := remoteAuth(t, url+path, tok, good)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"token_schema":"OAuthAccessToken"`) {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		var conn struct{ URL, Token string }
		_ = json.Unmarshal(body, &conn)
		parts := strings.Split(conn.Token, ".")
		if len(parts) != 3 || !strings.HasPrefix(conn.URL, url+"/_actions/") {
			t.Fatalf("connection %+v", conn)
		}
		claims, err := base64.RawURLEncoding.DecodeString(parts[1])
		var c struct{ Exp int64 }
		if err != nil || json.Unmarshal(claims, &c) != nil || c.Exp <= time.Now().Unix() {
			t.Fatalf("admin token claims %s (%v)", claims, err)
		}
	}
	bad := []struct {
		name   string
		token  string
		body   any
		status int
	}{
		{"unknown token", "nope", good, http.StatusUnauthorized},
		{"no body", tok, "", http.StatusBadRequest},
		{"another entity", tok, map[string]string{"url": url + "/other"}, http.StatusNotFound},
		{"not an entity URL", tok, map[string]string{"url": url + "/a/b/c"}, http.StatusNotFound},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if resp, body := remoteAuth(t, url+"/actions/runner-registration", tt.token, tt.body); resp.StatusCode != tt.status {
				t.Fatalf("%d %s, want %d", resp.StatusCode, body, tt.status)
			}
		})
	}
}

func TestActionsAuth(t *testing.T) {
	s, url := newSim(t, Options{ScaleSets: ScaleSetOptions{Hold: time.Millisecond}})
	base, admin := adminSession(t, s, url)
	resp, body := call(t, "POST", base+"_apis/runtime/runnerscalesets", admin, map[string]any{"name": "a", "runnerGroupId": 1})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, "GET", base+"_apis/runtime/runnerscalesets", "", nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "VssUnauthorizedException") {
		t.Fatalf("no token: %d %s", resp.StatusCode, body)
	}
	// A token of one tenant is refused on another.
	if err := s.AddRepo("acme/other"); err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(base, "/_actions/", "/_actions/9", 1)
	if resp, _ := call(t, "GET", other+"_apis/runtime/runnerscalesets", admin, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("other tenant: %d", resp.StatusCode)
	}
	// The admin token does not open the message queue; a queue token only its own set's.
	resp, body = call(t, "POST", base+"_apis/runtime/runnerscalesets/"+itoa(s.ScaleSets()[0].ID)+"/sessions", admin, map[string]string{"ownerName": "me"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("session: %d %s", resp.StatusCode, body)
	}
	var sess struct {
		MessageQueueURL         string `json:"messageQueueUrl"`
		MessageQueueAccessToken string `json:"messageQueueAccessToken"`
	}
	_ = json.Unmarshal(body, &sess)
	if resp, _ := call(t, "GET", sess.MessageQueueURL, admin, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("poll with the admin token: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "GET", sess.MessageQueueURL, sess.MessageQueueAccessToken, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("poll: %d", resp.StatusCode)
	}
	noQuery, _, _ := strings.Cut(sess.MessageQueueURL, "?")
	if resp, body := call(t, "GET", noQuery, sess.MessageQueueAccessToken, nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("poll without the query: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, "DELETE", noQuery+"/5", sess.MessageQueueAccessToken, nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("ack without the query: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, "POST", base+"_apis/runtime/runnerscalesets", admin, map[string]any{"name": "b"})
	var b struct{ ID int64 }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &b) != nil {
		t.Fatalf("second set: %d %s", resp.StatusCode, body)
	}
	wrongSet := strings.Replace(sess.MessageQueueURL, "/runnerscalesets/"+itoa(s.ScaleSets()[0].ID)+"/", "/runnerscalesets/"+itoa(b.ID)+"/", 1)
	if resp, _ := call(t, "GET", wrongSet, sess.MessageQueueAccessToken, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("poll another set: %d", resp.StatusCode)
	}
}

func TestActionsBadRequests(t *testing.T) {
	s, url := newSim(t, Options{ScaleSets: ScaleSetOptions{Hold: time.Millisecond}})
	base, admin := adminSession(t, s, url)
	sets := base + "_apis/runtime/runnerscalesets"
	resp, body := call(t, "POST", sets, admin, map[string]any{"name": "a"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	id := itoa(s.ScaleSets()[0].ID)
	raw := func(method, url, token, body string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	tests := []struct {
		name, method, url, body string
		status                  int
		typeName                string
	}{
		{"create without name", "POST", sets, `{"runnerGroupId": 1}`, 400, "ArgumentException"},
		{"create bad JSON", "POST", sets, `{`, 400, "ArgumentException"},
		{"create blank name", "POST", sets, `{"name": "  "}`, 400, "ArgumentException"},
		{"update bad JSON", "PATCH", sets + "/" + id, `[`, 400, "ArgumentException"},
		{"update blank name", "PATCH", sets + "/" + id, `{"name": ""}`, 400, "ArgumentException"},
		{"update missing set", "PATCH", sets + "/77777", `{}`, 404, "RunnerScaleSetNotFoundException"},
		{"JIT without name", "POST", sets + "/" + id + "/generatejitconfig", `{}`, 400, "ArgumentException"},
		{"JIT bad JSON", "POST", sets + "/" + id + "/generatejitconfig", `x`, 400, "ArgumentException"},
		{"session bad JSON", "POST", sets + "/" + id + "/sessions", `x`, 400, "ArgumentException"},
		{"delete unknown session", "DELETE", sets + "/" + id + "/sessions/nope", ``, 404, "TaskAgentSessionNotFoundException"},
		{"agent not a number", "GET", base + "_apis/distributedtask/pools/0/agents/x", ``, 404, "AgentNotFoundException"},
		{"delete missing agent", "DELETE", base + "_apis/distributedtask/pools/0/agents/5", ``, 404, "AgentNotFoundException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := raw(tt.method, tt.url, admin, tt.body)
			if status != tt.status || !strings.Contains(body, `"typeName":"`+tt.typeName+`"`) {
				t.Fatalf("%d %s, want %d %s", status, body, tt.status, tt.typeName)
			}
		})
	}
	// The queue: acquirejobs wants a JSON array.
	_, body = call(t, "POST", sets+"/"+id+"/sessions", admin, map[string]string{"ownerName": "me"})
	var sess struct {
		Token string `json:"messageQueueAccessToken"`
	}
	_ = json.Unmarshal(body, &sess)
	if status, body := raw("POST", sets+"/"+id+"/acquirejobs", sess.Token, `{"ids": 1}`); status != 400 {
		t.Fatalf("acquire with an object: %d %s", status, body)
	}
}

func TestActionsBOMAndInspection(t *testing.T) {
	s, url := newSim(t, Options{ScaleSets: ScaleSetOptions{Hold: time.Millisecond, BOM: true}})
	base, admin := adminSession(t, s, url)
	resp, body := call(t, "GET", base+"_apis/runtime/runnergroups/?groupName=Default", admin, nil)
	if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(body, []byte("\xef\xbb\xbf{")) || resp.Header.Get("ActivityId") == "" {
		t.Fatalf("groups: %d %q", resp.StatusCode, body)
	}
	var groups struct {
		Count int
		Value []struct {
			ID             int64
			Name           string
			IsDefaultGroup bool
		}
	}
	if err := json.Unmarshal(body[3:], &groups); err != nil || groups.Count != 1 || !groups.Value[0].IsDefaultGroup {
		t.Fatalf("groups %+v (%v)", groups, err)
	}
}

func FuzzScopeOfConfigURL(f *testing.F) {
	for _, s := range []string{"https://github.com/o/r", "https://github.com/o", "https://x/enterprises/e", "", "::", "https://x/a/b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		sc, ok := scopeOfConfigURL(raw)
		if !ok {
			return
		}
		if sc.name == "" || strings.HasPrefix(sc.name, "/") || strings.HasSuffix(sc.name, "/") {
			t.Fatalf("scope %+v from %q", sc, raw)
		}
	})
}

func TestActionsSimRoutes(t *testing.T) {
	s, url := newSim(t, Options{ScaleSets: ScaleSetOptions{Hold: time.Millisecond}})
	base, admin := adminSession(t, s, url)
	if resp, body := call(t, "POST", base+"_apis/runtime/runnerscalesets", admin, map[string]any{"name": "a"}); resp.StatusCode != 200 {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	id := itoa(s.ScaleSets()[0].ID)
	jobID, _ := s.QueueJob("acme/app", "a")

	resp, body := call(t, "GET", url+"/_sim/scalesets", "", nil)
	var sets []struct {
		ID         int64
		Name       string
		Pending    int
		Statistics ScaleSetStats
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &sets) != nil || len(sets) != 1 || sets[0].Pending != 1 || sets[0].Statistics.TotalAssignedJobs != 1 {
		t.Fatalf("scalesets: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, "POST", url+"/_sim/scalesets/"+id+"/foreign-session", "", nil)
	if resp.StatusCode != 201 || s.ScaleSets()[0].SessionOwner != "forgesim" {
		t.Fatalf("foreign session: %d %s", resp.StatusCode, body)
	}
	if resp, _ := call(t, "POST", url+"/_sim/scalesets/77/foreign-session", "", nil); resp.StatusCode != 404 {
		t.Fatalf("foreign session of a missing set: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "POST", url+"/_sim/jobs/"+itoa(jobID)+"/cancel-assignment", "", nil); resp.StatusCode != 204 {
		t.Fatalf("cancel assignment: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "POST", url+"/_sim/jobs/"+itoa(jobID)+"/complete-early", "", nil); resp.StatusCode != 409 {
		t.Fatalf("complete early a waiting job: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "POST", url+"/_sim/runners/4242/strand", "", nil); resp.StatusCode != 404 {
		t.Fatalf("strand a missing runner: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "POST", url+"/_sim/scalesets/"+id+"/expire-queue-tokens", "", nil); resp.StatusCode != 204 {
		t.Fatalf("expire: %d", resp.StatusCode)
	}
	faults := []struct {
		body   any
		status int
	}{
		{map[string]any{"fail": 1, "status": 503}, 204},
		{map[string]any{"fail": 1, "status": 200}, 400},
		{map[string]any{"outage": true}, 204},
		{map[string]any{"outage": false, "expire_admin_tokens": true}, 204},
		{"nope", 400},
	}
	for _, f := range faults {
		if resp, body := call(t, "POST", url+"/_sim/scalesets/faults", "", f.body); resp.StatusCode != f.status {
			t.Fatalf("faults %v: %d %s", f.body, resp.StatusCode, body)
		}
	}
	// The one failure was drawn by this call; then the admin token is expired.
	if resp, _ := call(t, "GET", base+"_apis/runtime/runnerscalesets", admin, nil); resp.StatusCode != 503 {
		t.Fatalf("after fail: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "GET", base+"_apis/runtime/runnerscalesets", admin, nil); resp.StatusCode != 401 {
		t.Fatalf("after expiry: %d", resp.StatusCode)
	}
}

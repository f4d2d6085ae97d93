package forgesim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
)

func TestDeliveryFaults(t *testing.T) {
	tests := []struct {
		name              string
		faults            DeliveryFaults
		wantSent, wantRec int
	}{
		{"reliable", DeliveryFaults{}, 3, 3},
		{"drop all", DeliveryFaults{Drop: 1}, 0, 3},
		{"duplicate all", DeliveryFaults{Duplicate: 1}, 6, 6},
		{"delay and reorder all", DeliveryFaults{Delay: 1, DelayFor: time.Millisecond, Reorder: 1, ReorderWindow: time.Millisecond}, 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newSim(t, Options{Delivery: tt.faults, Seed: 7})
			rc := newReceiver(t)
			if _, err := s.AddHook("orgs/acme", rc.srv.URL, "k", garrison.GitHub); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, err := s.QueueJob("acme/app", "x"); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.WaitDeliveries(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := len(rc.all()); got != tt.wantSent {
				t.Fatalf("sent %d, want %d", got, tt.wantSent)
			}
			if got := len(s.Deliveries()); got != tt.wantRec {
				t.Fatalf("recorded %d, want %d", got, tt.wantRec)
			}
			for _, d := range rc.all() {
				if ev, err := webhook.Parse(d.h, d.body); err != nil || ev.TargetType != "organization" || ev.EntityName != "acme" {
					t.Fatalf("parse: %+v %v", ev, err)
				}
			}
		})
	}
}

func TestRedeliverDropped(t *testing.T) {
	s, url := newSim(t, Options{Delivery: DeliveryFaults{Drop: 1}})
	rc := newReceiver(t)
	resp, body := call(t, "POST", url+"/repos/acme/app/hooks", pat, map[string]any{
		"name": "web", "active": true, "events": []string{"workflow_job"},
		"config": map[string]string{"url": rc.srv.URL, "content_type": "json", "secret": "k"},
	})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create hook: %d %s", resp.StatusCode, body)
	}
	var h struct {
		ID     int64
		Config map[string]string
	}
	_ = json.Unmarshal(body, &h)
	if h.Config["secret"] != "********" {
		t.Fatalf("secret not masked: %v", h.Config)
	}
	if resp, _ := call(t, "POST", url+"/repos/acme/app/hooks", pat, map[string]any{"config": map[string]string{"url": rc.srv.URL}}); resp.StatusCode != 422 {
		t.Fatalf("duplicate hook: %d", resp.StatusCode)
	}
	if _, err := s.QueueJob("acme/app", "x"); err != nil {
		t.Fatal(err)
	}
	_ = s.WaitDeliveries(t.Context())
	hookPath := url + "/repos/acme/app/hooks/" + itoa(h.ID)
	_, body = call(t, "GET", hookPath+"/deliveries?status=failure", pat, nil)
	var ds []struct {
		ID    int64
		GUID  string
		Event string
	}
	_ = json.Unmarshal(body, &ds)
	if len(ds) != 1 || ds[0].Event != "workflow_job" {
		t.Fatalf("failed deliveries: %s", body)
	}
	if resp, _ := call(t, "POST", hookPath+"/deliveries/"+itoa(ds[0].ID)+"/attempts", pat, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("redeliver: %d", resp.StatusCode)
	}
	_ = s.WaitDeliveries(t.Context())
	got := rc.all() // ping + redelivery
	if len(got) != 2 || got[1].h.Get("X-GitHub-Delivery") != ds[0].GUID || got[0].h.Get("X-GitHub-Event") != "ping" {
		t.Fatalf("received %d deliveries", len(got))
	}
}

func TestRateLimits(t *testing.T) {
	s, url := newSim(t, Options{RateLimit: RateLimitOptions{Limit: 2, Window: time.Hour, Status: 429}})
	list := url + "/repos/acme/app/actions/runners"
	resp, _ := call(t, "GET", list, pat, nil)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" || resp.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("first: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", list, nil)
	req.Header.Set("Authorization", "token "+pat)
	req.Header.Set("If-None-Match", etag)
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusNotModified || s.Budget(pat, "core").Used != 1 {
		t.Fatalf("304: %d, budget %+v", resp2.StatusCode, s.Budget(pat, "core"))
	}
	call(t, "GET", list, pat, nil)
	resp, _ = call(t, "GET", list, pat, nil)
	if resp.StatusCode != 429 || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("spent: %d %v", resp.StatusCode, resp.Header)
	}
	s.TriggerSecondaryLimit(1, 1500*time.Millisecond, 403)
	s.AddToken("other")
	resp, body := call(t, "GET", list, "other", nil)
	if resp.StatusCode != 403 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("secondary: %d %s", resp.StatusCode, body)
	}
	if resp, _ := call(t, "GET", list, "other", nil); resp.StatusCode != 200 {
		t.Fatalf("other credential: %d", resp.StatusCode)
	}
	if n := s.Calls()[CallKey{"GET /repos/{owner}/{repo}/actions/runners", pat}]; n != 4 {
		t.Fatalf("calls = %d", n)
	}
}

// TestStaleRateLimitAndCallLog checks the stale-reset fault (403, remaining 0, a reset in
// the past, no Retry-After, for n calls) and that the call log stamps calls with the
// simulator's clock and keeps their queries.
func TestStaleRateLimitAndCallLog(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	s, url := newSim(t, Options{Now: func() time.Time { return now }})
	list := url + "/repos/acme/app/actions/runners"
	s.ResetCalls()
	s.TriggerStaleRateLimit(2, 0)
	for i := range 2 {
		resp, body := call(t, "GET", list, pat, nil)
		reset, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
		if resp.StatusCode != 403 || resp.Header.Get("X-RateLimit-Remaining") != "0" || resp.Header.Get("Retry-After") != "" ||
			!time.Unix(reset, 0).Before(now) {
			t.Fatalf("call %d: %d %v %s, want a 403 with a passed reset", i, resp.StatusCode, resp.Header, body)
		}
		now = now.Add(time.Second)
	}
	if resp, _ := call(t, "GET", list+"?per_page=5", pat, nil); resp.StatusCode != 200 {
		t.Fatalf("after the fault: %d", resp.StatusCode)
	}
	log := s.CallLog()
	if len(log) != 3 || !log[0].At.Equal(now.Add(-2*time.Second)) || !log[2].At.Equal(now) ||
		log[1].Route != "GET /repos/{owner}/{repo}/actions/runners" || log[1].Credential != pat ||
		log[1].Query != "" || log[2].Query != "per_page=5" {
		t.Fatalf("call log %+v", log)
	}
	s.ResetCalls()
	if len(s.CallLog()) != 0 {
		t.Fatal("ResetCalls kept the call log")
	}
}

func TestPagination(t *testing.T) {
	s, url := newSim(t, Options{})
	tok := regToken(t, s, "repos/acme/app")
	for i := range 5 {
		if _, err := s.RegisterRunner(tok, "r"+itoa(int64(i)), []string{"x"}, false); err != nil {
			t.Fatal(err)
		}
	}
	resp, body := call(t, "GET", url+"/api/v3/repos/acme/app/actions/runners?per_page=2&page=2", pat, nil)
	var out struct {
		TotalCount int `json:"total_count"`
		Runners    []struct{ Name string }
	}
	_ = json.Unmarshal(body, &out)
	if out.TotalCount != 5 || len(out.Runners) != 2 || out.Runners[0].Name != "r2" {
		t.Fatalf("page 2: %s", body)
	}
	if l := resp.Header.Get("Link"); l == "" {
		t.Fatal("no Link header")
	}
}

func TestGiteaMode(t *testing.T) {
	s, url := newSim(t, Options{})
	rc := newReceiver(t)
	api := url + "/api/v1"
	tok := func() string {
		resp, body := call(t, "POST", api+"/orgs/acme/actions/runners/registration-token", pat, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("token: %d", resp.StatusCode)
		}
		var out struct{ Token string }
		_ = json.Unmarshal(body, &out)
		return out.Token
	}
	t1 := tok()
	if t2 := tok(); t1 != t2 {
		t.Fatal("gitea token not reused")
	}
	resp, _ := call(t, "POST", api+"/orgs/acme/hooks", pat, map[string]any{
		"type": "gitea", "active": true, "events": []string{"workflow_job"},
		"config": map[string]string{"url": rc.srv.URL, "content_type": "json", "secret": "k"},
	})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("hook: %d", resp.StatusCode)
	}
	resp, body := call(t, "POST", url+"/api/actions/runner.v1.RunnerService/Register", "", map[string]any{
		"name": "g1", "token": t1, "labels": []string{"ubuntu:host"}, "ephemeral": true,
	})
	var reg struct{ Runner struct{ Token string } }
	_ = json.Unmarshal(body, &reg)
	if resp.StatusCode != 200 || reg.Runner.Token == "" {
		t.Fatalf("register: %d %s", resp.StatusCode, body)
	}
	id, _ := s.QueueJob("acme/app", "ubuntu")
	if j, err := s.Acquire("g1", reg.Runner.Token); err != nil || j == nil {
		t.Fatalf("acquire: %v %v", j, err)
	}
	if _, err := s.StartJob(id, reg.Runner.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteJob(id, reg.Runner.Token, "failure"); err != nil {
		t.Fatal(err)
	}
	_ = s.WaitDeliveries(t.Context())
	got := rc.all()
	if len(got) != 3 {
		t.Fatalf("deliveries: %d", len(got))
	}
	for i, d := range got {
		if d.h.Get("X-Gitea-Event") != "workflow_job" || d.h.Get("X-Gitea-Signature") == "" {
			t.Fatalf("headers: %v", d.h)
		}
		ev, err := webhook.Parse(d.h, d.body)
		if err != nil || ev.Forge != garrison.Gitea || ev.EntityName != "acme" {
			t.Fatalf("parse: %+v %v", ev, err)
		}
		var raw map[string]map[string]any
		_ = json.Unmarshal(d.body, &raw)
		_, hasRunner := raw["workflow_job"]["runner_id"]
		_, hasLogin := raw["organization"]["login"]
		if hasLogin || hasRunner != (i > 0) {
			t.Fatalf("gitea payload %d: %s", i, d.body)
		}
	}
	resp, _ = call(t, "GET", api+"/orgs/acme/actions/runners", "bad", nil)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad token: %d", resp.StatusCode)
	}
}

func TestAPIFault(t *testing.T) {
	s, url := newSim(t, Options{})
	runners := url + "/repos/acme/app/actions/runners"
	if resp, _ := call(t, http.MethodGet, runners, pat, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("healthy: %d", resp.StatusCode)
	}
	s.SetAPIFault(APIFault{Status: http.StatusBadGateway})
	if resp, _ := call(t, http.MethodGet, runners, pat, nil); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("outage: %d, want 502", resp.StatusCode)
	}
	s.SetAPIFault(APIFault{Delay: 50 * time.Millisecond})
	if resp, _ := call(t, http.MethodGet, runners, pat, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("slow forge: %d, want 200 after the delay", resp.StatusCode)
	}
	s.SetAPIFault(APIFault{})
	if resp, _ := call(t, http.MethodGet, runners, pat, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("recovered: %d", resp.StatusCode)
	}
}

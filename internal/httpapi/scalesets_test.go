package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httpapi"
)

// fakeScaleSetForge records the scale-set forge calls and fails them on demand. It
// stands in for the Actions service at the API's consumer-side interface; the listener's
// end-to-end tests run against the forge simulator.
type fakeScaleSetForge struct {
	mu        sync.Mutex
	nextID    int
	sets      map[int]garrison.ScaleSet
	removed   []int64
	createErr error
	updateErr error
	deleteErr error
}

func newFakeScaleSetForge() *fakeScaleSetForge {
	return &fakeScaleSetForge{nextID: 100, sets: map[int]garrison.ScaleSet{}}
}

func (f *fakeScaleSetForge) CreateScaleSet(_ context.Context, _ garrison.Entity, s garrison.ScaleSet) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.createErr != nil {
		return 0, f.createErr
	}
	f.nextID++
	f.sets[f.nextID] = s
	return f.nextID, nil
}

func (f *fakeScaleSetForge) UpdateScaleSet(_ context.Context, _ garrison.Entity, s garrison.ScaleSet) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.updateErr != nil {
		return f.updateErr
	}
	f.sets[s.ScaleSetID] = s
	return nil
}

func (f *fakeScaleSetForge) DeleteScaleSet(_ context.Context, _ garrison.Entity, s garrison.ScaleSet) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deleteErr != nil {
		return f.deleteErr
	}
	if _, ok := f.sets[s.ScaleSetID]; !ok {
		return garrison.ErrNotFound
	}
	delete(f.sets, s.ScaleSetID)
	return nil
}

func (f *fakeScaleSetForge) RemoveRunner(_ context.Context, _ garrison.Entity, _ garrison.ScaleSet, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, id)
	return nil
}

func (f *fakeScaleSetForge) set(fn func(*fakeScaleSetForge)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// scaleSetFixture is the fixture plus a scale-set forge and the notified scale sets.
type scaleSetFixture struct {
	*fixture
	ssf      *fakeScaleSetForge
	mu       sync.Mutex
	notified []uint
}

func newScaleSetFixture(t *testing.T) *scaleSetFixture {
	sf := &scaleSetFixture{ssf: newFakeScaleSetForge()}
	sf.fixture = newFixture(t, func(o *httpapi.Options) {
		o.ScaleSetForge = sf.ssf
		o.NotifyScaleSet = func(id uint) {
			sf.mu.Lock()
			defer sf.mu.Unlock()
			sf.notified = append(sf.notified, id)
		}
	})
	return sf
}

// validScaleSet is what `garm-cli scaleset add` sends with its defaults.
func validScaleSet(name string) map[string]any {
	return map[string]any{"name": name, "disable_update": false, "scale_set_id": 0, "enable_shell": false,
		"provider_name": "lxd", "max_runners": 5, "min_idle_runners": 1, "image": "ubuntu", "flavor": "small",
		"os_type": "linux", "os_arch": "amd64", "runner_bootstrap_timeout": 20, "labels": []string{"gpu", "big"}}
}

func (sf *scaleSetFixture) create(t *testing.T, body map[string]any) apiv1.ScaleSet {
	t.Helper()
	var ss apiv1.ScaleSet
	sf.h.expect(sf.h.call("POST", api("/repositories/"+sf.repoID+"/scalesets"), sf.tok, body), 200, &ss)
	return ss
}

func TestScaleSetCreate(t *testing.T) {
	sf := newScaleSetFixture(t)
	h, tok := sf.h, sf.tok
	r := h.call("POST", api("/repositories/"+sf.repoID+"/scalesets"), tok, validScaleSet("set-a"))
	var ss apiv1.ScaleSet
	h.expect(r, 200, &ss)
	if ss.ID == 0 || ss.ScaleSetID != 101 || ss.State != "created" || ss.Name != "set-a" || ss.RepoID != sf.repoID ||
		ss.RepoName != "o/r" || ss.GitHubRunnerGroup != "Default" || ss.RunnerPrefix != "garm" ||
		ss.Endpoint.Name != "github.com" || ss.RunnerBootstrapTimeout != 20 {
		t.Fatalf("created %+v", ss)
	}
	if len(ss.Tags) != 2 || ss.Tags[0].Name != "gpu" || ss.Tags[1].Name != "big" {
		t.Fatalf("tags %+v", ss.Tags)
	}
	k := keys(t, r.body)
	for _, key := range []string{"disable_update", "state", "enable_shell", "generation", "status_messages", "tags", "endpoint"} {
		if _, ok := k[key]; !ok {
			t.Errorf("key %q missing from %s", key, r.body)
		}
	}
	if string(k["status_messages"]) != "[]" {
		t.Errorf("status_messages = %s, want []", k["status_messages"])
	}
	for _, key := range []string{"desired_runner_count", "enabled", "extra_specs", "instances"} {
		if _, ok := k[key]; ok {
			t.Errorf("empty key %q present in %s", key, r.body)
		}
	}
	sf.mu.Lock()
	if len(sf.notified) != 1 || sf.notified[0] != ss.ID {
		t.Errorf("notified %v", sf.notified)
	}
	sf.mu.Unlock()
}

func TestScaleSetCreateRefused(t *testing.T) {
	sf := newScaleSetFixture(t)
	h, tok := sf.h, sf.tok
	sf.create(t, validScaleSet("taken"))
	path := api("/repositories/" + sf.repoID + "/scalesets")
	v := validScaleSet("set-x")
	for _, tc := range []struct {
		name    string
		path    string
		body    any
		status  int
		details string
	}{
		{"no name", path, with(v, "name", nil), 400, "missing scale set name"},
		{"no provider", path, with(v, "provider_name", nil), 400, "missing provider"},
		{"max 0", path, with(v, "max_runners", 0, "min_idle_runners", 0), 400, "max_runners cannot be 0"},
		{"min > max", path, with(v, "min_idle_runners", 9), 400, "min_idle_runners cannot be larger than max_runners"},
		{"no image", path, with(v, "image", nil), 400, "missing image"},
		{"no flavor", path, with(v, "flavor", nil), 400, "missing flavor"},
		{"bad os", path, with(v, "os_type", "plan9"), 400, "invalid OS type plan9"},
		{"bad arch", path, with(v, "os_arch", "mips"), 400, "invalid OS architecture mips"},
		{"unknown provider", path, with(v, "provider_name", "nope"), 400, "no such provider nope"},
		{"unknown proxy", path, with(v, "proxy_id", 7), 400, "proxy with ID 7 does not exist"},
		{"duplicate", path, with(v, "name", "TAKEN"), 409, "scale set TAKEN already exists in runner group Default"},
		{"bad body", path, []byte("{"), 400, ""},
		{"bad entity id", api("/repositories/nope/scalesets"), v, 400, "error parsing id: invalid request"},
		{"unknown entity", api("/repositories/00000000-0000-0000-0000-000000000000/scalesets"), v, 404, ""},
		{"org route for a repo", api("/organizations/" + sf.repoID + "/scalesets"), v, 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call("POST", tc.path, tok, tc.body)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.details != "" {
				var e apiv1.APIError
				if err := json.Unmarshal(r.body, &e); err != nil || e.Details != tc.details {
					t.Fatalf("details %q, want %q", e.Details, tc.details)
				}
			}
		})
	}
	sf.ssf.mu.Lock()
	n := len(sf.ssf.sets)
	sf.ssf.mu.Unlock()
	if n != 1 {
		t.Fatalf("the forge has %d scale sets after refused creates, want 1", n)
	}
	var list []apiv1.ScaleSet
	h.expect(h.call("GET", api("/scalesets"), tok, nil), 200, &list)
	if len(list) != 1 {
		t.Fatalf("%d scale sets stored", len(list))
	}
}

func TestScaleSetCreateForgeFailure(t *testing.T) {
	sf := newScaleSetFixture(t)
	sf.ssf.set(func(f *fakeScaleSetForge) { f.createErr = garrison.Errorf(garrison.EUnavailable, "boom") })
	r := sf.h.call("POST", api("/repositories/"+sf.repoID+"/scalesets"), sf.tok, validScaleSet("set-a"))
	if r.status < 500 || !strings.Contains(string(r.body), "failed to create scale set in the forge") {
		t.Fatalf("forge failure: %d %s", r.status, r.body)
	}
	var list []apiv1.ScaleSet
	sf.h.expect(sf.h.call("GET", api("/scalesets"), sf.tok, nil), 200, &list)
	if len(list) != 0 {
		t.Fatalf("a scale set was stored after a forge failure: %+v", list)
	}
}

func TestScaleSetGiteaRefused(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	h.expect(h.call("POST", api("/gitea/endpoints"), tok, map[string]any{"name": "g", "base_url": "https://g",
		"api_base_url": "https://g/api/v1"}), 200, nil)
	h.expect(h.call("POST", api("/gitea/credentials"), tok, map[string]any{"name": "gc", "endpoint": "g",
		"auth_type": "pat", "pat": map[string]any{"oauth2_token": "x"}}), 200, nil)
	var repo apiv1.Repository
	h.expect(h.call("POST", api("/repositories"), tok, map[string]any{"owner": "o", "name": "gr",
		"credentials_name": "gc", "webhook_secret": "s", "forge_type": "gitea"}), 200, &repo)
	h.expectError(h.call("POST", api("/repositories/"+repo.ID+"/scalesets"), tok, validScaleSet("s")), 400,
		"Bad Request", "scale sets are only supported for github entities")
}

func TestScaleSetReadRoutes(t *testing.T) {
	sf := newScaleSetFixture(t)
	h, tok := sf.h, sf.tok
	a := sf.create(t, validScaleSet("set-a"))
	var org apiv1.Organization
	h.expect(h.call("POST", api("/organizations"), tok, map[string]any{"name": "acme", "credentials_name": "pat",
		"webhook_secret": "s"}), 200, &org)
	var b apiv1.ScaleSet
	h.expect(h.call("POST", api("/organizations/"+org.ID+"/scalesets"), tok, validScaleSet("set-b")), 200, &b)
	if b.OrgID != org.ID || b.OrgName != "acme" || b.RepoID != "" {
		t.Fatalf("org scale set %+v", b)
	}
	_, err := h.store.CreateInstance(t.Context(), garrison.Instance{Name: "garm-ss1", ScaleSetID: a.ID,
		ProviderName: "lxd", Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle, Generation: 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		status     int
		wantIDs    []uint // for lists
		details    string
	}{
		{"all", "/scalesets", 200, []uint{a.ID, b.ID}, ""},
		{"all, slash", "/scalesets/", 200, []uint{a.ID, b.ID}, ""},
		{"repo", "/repositories/" + sf.repoID + "/scalesets", 200, []uint{a.ID}, ""},
		{"org", "/organizations/" + org.ID + "/scalesets", 200, []uint{b.ID}, ""},
		{"entity bad id", "/repositories/x/scalesets", 400, nil, "error parsing id: invalid request"},
		{"entity unknown", "/enterprises/00000000-0000-0000-0000-000000000000/scalesets", 404, nil, ""},
		{"get bad id", "/scalesets/abc", 400, nil, "invalid request"},
		{"get too big", "/scalesets/99999999999", 400, nil, "invalid request"},
		{"get unknown", "/scalesets/4242", 404, nil, "error fetching scale set: error fetching scale set by ID: not found"},
		{"instances unknown", "/scalesets/4242/instances", 200, nil, ""},
		{"instances bad", "/scalesets/x/instances", 400, nil, "invalid request"},
		{"instances bad query", "/scalesets/1/instances?outdatedOnly=maybe", 400, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call("GET", api(tc.path), tok, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.details != "" {
				var e apiv1.APIError
				if err := json.Unmarshal(r.body, &e); err != nil || e.Details != tc.details {
					t.Fatalf("details %q, want %q", e.Details, tc.details)
				}
			}
			if tc.wantIDs == nil || r.status != 200 {
				return
			}
			var list []apiv1.ScaleSet
			h.expect(r, 200, &list)
			var ids []uint
			for _, s := range list {
				ids = append(ids, s.ID)
				if s.Endpoint.Name != "github.com" || len(s.Instances) != 0 || s.ExtraSpecs != nil {
					t.Errorf("list item %+v", s)
				}
			}
			if len(ids) != len(tc.wantIDs) || (len(ids) > 0 && ids[0] != tc.wantIDs[0]) {
				t.Fatalf("ids %v, want %v", ids, tc.wantIDs)
			}
		})
	}
	var got apiv1.ScaleSet
	h.expect(h.call("GET", api("/scalesets/"+itoa(a.ID)), tok, nil), 200, &got)
	if len(got.Instances) != 1 || got.Instances[0].ScaleSetID != a.ID || got.Instances[0].PoolID != "" {
		t.Fatalf("detailed instances %+v", got.Instances)
	}
	r := h.call("GET", api("/scalesets/4242/instances"), tok, nil)
	if strings.TrimSpace(string(r.body)) != "[]" {
		t.Fatalf("unknown scale set instances = %s", r.body)
	}
	var insts []apiv1.Instance
	h.expect(h.call("GET", api("/scalesets/"+itoa(a.ID)+"/instances"), tok, nil), 200, &insts)
	if len(insts) != 1 {
		t.Fatalf("instances %+v", insts)
	}
	h.expect(h.call("GET", api("/scalesets/"+itoa(a.ID)+"/instances?outdatedOnly=true"), tok, nil), 200, &insts)
	if len(insts) != 0 {
		t.Fatalf("outdated before any change: %+v", insts)
	}
	h.expect(h.call("PUT", api("/scalesets/"+itoa(a.ID)), tok, map[string]any{"image": "ubuntu:26.04"}), 200, nil)
	h.expect(h.call("GET", api("/scalesets/"+itoa(a.ID)+"/instances?outdatedOnly=true"), tok, nil), 200, &insts)
	if len(insts) != 1 {
		t.Fatalf("outdated after an image change: %+v", insts)
	}
	// GARM's per-entity instance list is pool runners only; /instances has both.
	h.expect(h.call("GET", api("/repositories/"+sf.repoID+"/instances"), tok, nil), 200, &insts)
	if len(insts) != 0 {
		t.Fatalf("entity instances %+v", insts)
	}
	h.expect(h.call("GET", api("/instances"), tok, nil), 200, &insts)
	if len(insts) != 1 || insts[0].ScaleSetID != a.ID {
		t.Fatalf("all instances %+v", insts)
	}
}

func TestScaleSetUpdate(t *testing.T) {
	sf := newScaleSetFixture(t)
	h, tok := sf.h, sf.tok
	a := sf.create(t, validScaleSet("set-a"))
	sf.create(t, validScaleSet("set-b"))
	path := api("/scalesets/" + itoa(a.ID))
	// garm-cli always sends enable_shell, state and extended_state, null unless set.
	cli := func(kv ...any) map[string]any {
		return with(map[string]any{"enable_shell": nil, "state": nil, "extended_state": nil}, kv...)
	}
	for _, tc := range []struct {
		name    string
		body    any
		status  int
		details string
		check   func(t *testing.T, ss apiv1.ScaleSet)
	}{
		{"nulls only", []byte(`{"enable_shell":null,"state":null,"extended_state":null}`), 200, "", func(t *testing.T, ss apiv1.ScaleSet) {
			if ss.Name != "set-a" || ss.MaxRunners != 5 || ss.Generation != a.Generation {
				t.Errorf("nothing should change: %+v", ss)
			}
		}},
		{"capacity and enable", cli("max_runners", 8, "min_idle_runners", 2, "enabled", true), 200, "", func(t *testing.T, ss apiv1.ScaleSet) {
			if ss.MaxRunners != 8 || ss.MinIdleRunners != 2 || !ss.Enabled || ss.Generation != a.Generation {
				t.Errorf("%+v", ss)
			}
		}},
		{"server-owned state ignored", cli("state", "error", "extended_state", "x"), 200, "", func(t *testing.T, ss apiv1.ScaleSet) {
			if ss.State != "created" || ss.ExtendedState != "" {
				t.Errorf("state %q %q", ss.State, ss.ExtendedState)
			}
		}},
		{"rename and group go to the forge", cli("name", "set-c", "runner_group", "gpu", "disable_update", true), 200, "", func(t *testing.T, ss apiv1.ScaleSet) {
			if ss.Name != "set-c" || ss.GitHubRunnerGroup != "gpu" || !ss.DisableUpdate || ss.Generation != a.Generation+1 {
				t.Errorf("%+v", ss)
			}
			sf.ssf.mu.Lock()
			defer sf.ssf.mu.Unlock()
			if got := sf.ssf.sets[ss.ScaleSetID]; got.Name != "set-c" || got.RunnerGroup != "gpu" || !got.DisableUpdate {
				t.Errorf("forge has %+v", got)
			}
		}},
		{"image bumps generation", cli("image", "ubuntu:26.04", "extra_specs", map[string]any{"k": 1}), 200, "", func(t *testing.T, ss apiv1.ScaleSet) {
			if ss.Image != "ubuntu:26.04" || string(ss.ExtraSpecs) != `{"k":1}` || ss.Generation != a.Generation+2 {
				t.Errorf("%+v", ss)
			}
		}},
		{"max 0 accepted with min 0", cli("max_runners", 0, "min_idle_runners", 0), 200, "", nil},
		{"bootstrap 0", cli("runner_bootstrap_timeout", 0), 400, "runner_bootstrap_timeout cannot be 0", nil},
		{"min above max", cli("min_idle_runners", 3), 400, "min_idle_runners cannot be larger than max_runners", nil},
		{"shell", cli("enable_shell", true), 400, "", nil},
		{"bad os", cli("os_type", "plan9"), 400, "invalid OS type plan9", nil},
		{"unknown proxy", cli("proxy_id", 3), 400, "proxy with ID 3 does not exist", nil},
		{"rename onto another", cli("name", "SET-B", "runner_group", "Default"), 409, "scale set SET-B already exists in runner group Default", nil},
		{"bad body", []byte(`{"max_runners":"x"}`), 400, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call("PUT", path, tok, tc.body)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.details != "" {
				var e apiv1.APIError
				if err := json.Unmarshal(r.body, &e); err != nil || e.Details != tc.details {
					t.Fatalf("details %q, want %q", e.Details, tc.details)
				}
			}
			if tc.check != nil {
				var ss apiv1.ScaleSet
				h.expect(r, 200, &ss)
				tc.check(t, ss)
			}
		})
	}
	h.expect(h.call("PUT", api("/scalesets/4242"), tok, cli()), 404, nil)
	h.expect(h.call("PUT", api("/scalesets/x"), tok, cli()), 400, nil)

	// A forge failure aborts the update.
	sf.ssf.set(func(f *fakeScaleSetForge) { f.updateErr = garrison.Errorf(garrison.EUnavailable, "down") })
	r := h.call("PUT", path, tok, cli("name", "set-z"))
	if r.status < 500 {
		t.Fatalf("forge failure: %d %s", r.status, r.body)
	}
	var got apiv1.ScaleSet
	h.expect(h.call("GET", path, tok, nil), 200, &got)
	if got.Name != "set-c" {
		t.Fatalf("name after a failed forge update: %s", got.Name)
	}
}

func TestScaleSetDelete(t *testing.T) {
	sf := newScaleSetFixture(t)
	h, tok, ctx := sf.h, sf.tok, t.Context()
	a := sf.create(t, with(validScaleSet("set-a"), "enabled", true))
	path := api("/scalesets/" + itoa(a.ID))
	h.expect(h.call("DELETE", api("/scalesets/4242"), tok, nil), 200, nil) // unknown: 200
	h.expectError(h.call("DELETE", api("/scalesets/abc"), tok, nil), 400, "Bad Request", "invalid request")
	h.expectError(h.call("DELETE", path, tok, nil), 400, "Bad Request", "scale set is enabled; disable it first")
	h.expect(h.call("PUT", path, tok, map[string]any{"enabled": false}), 200, nil)
	if _, err := h.store.CreateInstance(ctx, garrison.Instance{Name: "garm-ss1", ScaleSetID: a.ID, ProviderName: "lxd",
		Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle, AgentID: 77}); err != nil {
		t.Fatal(err)
	}
	h.expectError(h.call("DELETE", path, tok, nil), 400, "Bad Request", "scale set has runners")
	// Deleting a scale-set runner removes it through the Actions service (SS-16).
	h.expect(h.call("DELETE", api("/instances/garm-ss1?forceRemove=false&bypassGHUnauthorized=false"), tok, nil), 200, nil)
	sf.ssf.mu.Lock()
	removed := append([]int64(nil), sf.ssf.removed...)
	sf.ssf.mu.Unlock()
	if len(removed) != 1 || removed[0] != 77 {
		t.Fatalf("removed runners %v", removed)
	}
	if in, _ := h.store.Instance(ctx, "garm-ss1"); in.Status != garrison.InstancePendingDelete {
		t.Fatalf("instance status %s", in.Status)
	}
	if err := h.store.DeleteInstance(ctx, "garm-ss1"); err != nil {
		t.Fatal(err)
	}
	// The repository cannot go while it owns a scale set.
	h.expect(h.call("DELETE", api("/pools/"+sf.poolID), tok, nil), 200, nil)
	h.expect(h.call("DELETE", api("/repositories/"+sf.repoID), tok, nil), 400, nil)

	// A forge failure keeps the row (R2-2).
	sf.ssf.set(func(f *fakeScaleSetForge) { f.deleteErr = garrison.Errorf(garrison.EUnavailable, "down") })
	if r := h.call("DELETE", path, tok, nil); r.status < 500 {
		t.Fatalf("forge failure: %d %s", r.status, r.body)
	}
	h.expect(h.call("GET", path, tok, nil), 200, nil)
	sf.ssf.set(func(f *fakeScaleSetForge) { f.deleteErr = nil })
	h.expect(h.call("DELETE", path, tok, nil), 200, nil)
	h.expect(h.call("GET", path, tok, nil), 404, nil)

	// A scale set the forge no longer has is deleted too (404 there is gone, R2-2).
	b := sf.create(t, validScaleSet("set-b"))
	sf.ssf.set(func(f *fakeScaleSetForge) { delete(f.sets, b.ScaleSetID) })
	h.expect(h.call("DELETE", api("/scalesets/"+itoa(b.ID)), tok, nil), 200, nil)
	h.expect(h.call("GET", api("/scalesets/"+itoa(b.ID)), tok, nil), 404, nil)
	h.expect(h.call("DELETE", api("/repositories/"+sf.repoID), tok, nil), 200, nil)
}

package httpapi_test

import (
	"encoding/json"
	"testing"
)

// FuzzCreatePool throws arbitrary bodies at POST /repositories/{id}/pools: the server must
// answer 200, 400 or 413 with a JSON body, never 500 or a panic.
func FuzzCreatePool(f *testing.F) {
	for _, seed := range []string{
		`{"provider_name":"lxd","max_runners":2,"image":"i","flavor":"f","os_type":"linux","os_arch":"amd64","tags":["a"]}`,
		`{"max_runners":"5"}`, `{"tags":null,"extra_specs":{"a":[1,2]}}`, `{`, ``, `[]`, `null`, `{"extra_specs":null}`,
		`{"max_runners":-1}`, `{"template_id":0,"proxy_id":0}`, "{\"tags\":[\"\\u0000\"]}",
	} {
		f.Add([]byte(seed))
	}
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fx.h.t = t
		r := fx.h.call("POST", api("/repositories/"+fx.repoID+"/pools"), fx.tok, body)
		switch r.status {
		case 200, 400, 413:
		default:
			t.Fatalf("status %d for %q: %s", r.status, body, r.body)
		}
		if !json.Valid(r.body) {
			t.Fatalf("invalid JSON response %q", r.body)
		}
	})
}

// FuzzScaleSetBodies throws arbitrary bodies at POST /repositories/{id}/scalesets and
// PUT /scalesets/{id}: the server must answer 200, 400, 409 or 413 with a JSON body, never
// 500 or a panic.
func FuzzScaleSetBodies(f *testing.F) {
	for _, seed := range []string{
		`{"name":"s","provider_name":"lxd","max_runners":2,"image":"i","flavor":"f","labels":["a","A",""]}`,
		`{"max_runners":"5"}`, `{"labels":null,"extra_specs":{"a":[1,2]}}`, `{`, ``, `[]`, `null`,
		`{"enable_shell":null,"state":null,"extended_state":null}`, `{"runner_group":""}`, `{"name":"\u0000"}`,
		`{"max_runners":0,"min_idle_runners":0}`, `{"runner_bootstrap_timeout":0}`, `{"proxy_id":0,"template_id":0}`,
	} {
		f.Add([]byte(seed))
	}
	fx := newFixture(f)
	var ss struct {
		ID uint `json:"id"`
	}
	fx.h.expect(fx.h.call("POST", api("/repositories/"+fx.repoID+"/scalesets"), fx.tok,
		map[string]any{"name": "base", "provider_name": "lxd", "max_runners": 2, "image": "i", "flavor": "f"}), 200, &ss)
	f.Fuzz(func(t *testing.T, body []byte) {
		fx.h.t = t
		for _, call := range []struct{ method, path string }{
			{"POST", api("/repositories/" + fx.repoID + "/scalesets")},
			{"PUT", api("/scalesets/" + itoa(ss.ID))},
		} {
			r := fx.h.call(call.method, call.path, fx.tok, body)
			switch r.status {
			case 200, 400, 409, 413:
			default:
				t.Fatalf("%s: status %d for %q: %s", call.method, r.status, body, r.body)
			}
			if !json.Valid(r.body) {
				t.Fatalf("%s: invalid JSON response %q", call.method, r.body)
			}
		}
	})
}

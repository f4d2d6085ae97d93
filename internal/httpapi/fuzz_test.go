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

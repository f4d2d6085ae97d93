package httpapi_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/garrison-ci/garrison/internal/httpapi"
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

// adminBodyRoutes are the admin REST calls that take a body; ids are filled from the
// fixture.
func adminBodyRoutes(fx *fixture) []struct{ method, path string } {
	creds := fmt.Sprint(fx.credsID)
	return []struct{ method, path string }{
		{"POST", "/github/endpoints"}, {"PUT", "/github/endpoints/ghes"},
		{"POST", "/gitea/endpoints"}, {"PUT", "/gitea/endpoints/gt"},
		{"POST", "/github/credentials"}, {"PUT", "/github/credentials/" + creds},
		{"POST", "/gitea/credentials"},
		{"PUT", "/controller"},
		{"POST", "/repositories"}, {"PUT", "/repositories/" + fx.repoID},
		{"POST", "/organizations"}, {"POST", "/enterprises"},
		{"PUT", "/pools/" + fx.poolID}, {"PUT", "/repositories/" + fx.repoID + "/pools/" + fx.poolID},
		{"POST", "/repositories/" + fx.repoID + "/webhook"},
		{"POST", "/pools/" + fx.poolID + "/runners/rotate"},
	}
}

// FuzzAdminBodies throws arbitrary bodies at every admin call that takes one (endpoints
// with their CA bundles and URLs, credentials with App private keys, the controller's
// URLs, entities, pools, webhooks): the server answers a 2xx or 4xx with a JSON body,
// never a 500 or a panic.
func FuzzAdminBodies(f *testing.F) {
	cert := string(httpapi.FixtureCertPEM(f))
	key := string(httpapi.FixtureAppKeyPEM(f))
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	seeds := map[int][]any{
		0: {map[string]any{"name": "e1", "base_url": "https://g", "api_base_url": "https://g/api/v3/", "upload_base_url": "https://g/up/",
			"ca_cert_bundle": b64(cert)}, map[string]any{"name": "e2", "base_url": "ftp://g", "ca_cert_bundle": "!!"}},
		1: {map[string]any{"base_url": "https://h", "ca_cert_bundle": b64("junk")}},
		2: {map[string]any{"name": "g2", "base_url": "https://g", "api_base_url": "https://g/api/v1", "tools_metadata_url": "https://g/r"}},
		3: {map[string]any{"ca_cert_bundle": b64(cert + cert)}},
		4: {map[string]any{"name": "app", "endpoint": "github.com", "auth_type": "app",
			"app": map[string]any{"app_id": 1, "installation_id": 2, "private_key_bytes": b64(key)}},
			map[string]any{"name": "app2", "endpoint": "github.com", "auth_type": "app",
				"app": map[string]any{"app_id": 1, "installation_id": 2, "private_key_bytes": b64("-----BEGIN RSA PRIVATE KEY-----\n")}}},
		5: {map[string]any{"app": map[string]any{"private_key_bytes": b64(key)}}, map[string]any{"pat": map[string]any{"oauth2_token": ""}}},
		6: {map[string]any{"name": "gc", "endpoint": "gt", "auth_type": "pat", "pat": map[string]any{"oauth2_token": "t"}}},
		7: {map[string]any{"callback_url": "https://c/cb", "metadata_url": "https://c/md", "webhook_url": "https://c/wh"},
			map[string]any{"callback_url": "javascript:x", "minimum_job_age_backoff": -1}},
		8:  {map[string]any{"owner": "o", "name": "r2", "credentials_name": "pat", "webhook_secret": "s"}},
		10: {map[string]any{"name": "org", "credentials_name": "pat", "webhook_secret": "s", "pool_balancer_type": "pack"}},
		12: {map[string]any{"max_runners": 3, "extra_specs": map[string]any{"a": 1}}},
		14: {map[string]any{"insecure_ssl": true}},
	}
	fx := newFixture(f)
	fx.h.expect(fx.h.call("POST", api("/github/endpoints"), fx.tok, map[string]any{"name": "ghes", "base_url": "https://ghes",
		"api_base_url": "https://ghes/api/v3/", "upload_base_url": "https://ghes/api/uploads/"}), 200, nil)
	fx.h.expect(fx.h.call("POST", api("/gitea/endpoints"), fx.tok, map[string]any{"name": "gt", "base_url": "https://gt",
		"api_base_url": "https://gt/api/v1"}), 200, nil)
	routes := adminBodyRoutes(fx)
	for i := range routes {
		f.Add(uint8(i), []byte(`{}`))
		f.Add(uint8(i), []byte(`{"name":null}`))
		for _, s := range seeds[i] {
			raw, _ := json.Marshal(s)
			f.Add(uint8(i), raw)
		}
	}
	f.Add(uint8(0), []byte(`[`))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		fx.h.t = t
		rt := routes[int(which)%len(routes)]
		r := fx.h.call(rt.method, api(rt.path), fx.tok, body)
		if r.status >= 500 || r.status < 200 {
			t.Fatalf("%s %s: status %d for %q: %s", rt.method, rt.path, r.status, body, r.body)
		}
		if len(r.body) > 0 && !json.Valid(r.body) {
			t.Fatalf("%s %s: invalid JSON response %q", rt.method, rt.path, r.body)
		}
	})
}

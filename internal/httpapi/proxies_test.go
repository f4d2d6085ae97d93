package httpapi_test

import (
	"strconv"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TestProxyValidation checks every refusal of rest-api-2 §6.3 with GARM's prefixes, and
// that nothing refused is stored.
func TestProxyValidation(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	const cp = "failed to validate create params: "
	tests := []struct {
		name    string
		body    any
		details string
	}{
		{"no name", map[string]any{"http_proxy": "http://p:3128"}, cp + "name cannot be empty"},
		{"no URL", map[string]any{"name": "x"}, cp + "at least one of http_proxy or https_proxy must be set"},
		{"bad scheme", map[string]any{"name": "x", "http_proxy": "ftp://p"}, cp + `invalid proxy URL scheme "ftp"; supported schemes are http, https and socks5`},
		{"no host", map[string]any{"name": "x", "https_proxy": "https://:443"}, cp + `invalid proxy URL: "https://:443"; missing host`},
		{"credentials in URL", map[string]any{"name": "x", "http_proxy": "http://u:p@p"}, cp + "proxy URLs must not embed credentials; use the username and password fields instead"},
		{"unparseable", map[string]any{"name": "x", "http_proxy": "http://[::1"}, cp + `invalid proxy URL: "http://[::1"`},
		{"password alone", map[string]any{"name": "x", "http_proxy": "http://p", "password": "pw"}, cp + "password cannot be set without a username"},
		{"not JSON", []byte(`{"name":`), "invalid request: unexpected EOF at offset 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h.expectError(h.call("POST", api("/proxies"), tok, tc.body), 400, "Bad Request", tc.details)
		})
	}
	var list []apiv1.Proxy
	h.expect(h.call("GET", api("/proxies"), tok, nil), 200, &list)
	if len(list) != 0 {
		t.Fatalf("refused creates stored %+v", list)
	}
}

// TestProxyLifecycle walks the proxy routes and how pools use proxies (PX-1).
func TestProxyLifecycle(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	r := h.call("POST", api("/proxies"), tok, map[string]any{"name": "corp", "description": "d",
		"http_proxy": "http://proxy.corp:3128", "no_proxy": "localhost", "username": "bob", "password": "s3cret"})
	var px apiv1.Proxy
	h.expect(r, 200, &px)
	m := keys(t, r.body)
	requireKeys(t, m, "id", "name", "created_at", "updated_at", "http_proxy", "no_proxy", "username", "description")
	forbidKeys(t, m, "password", "https_proxy")
	path := api("/proxies/" + strconv.FormatUint(uint64(px.ID), 10))
	h.expectError(h.call("POST", api("/proxies"), tok, map[string]any{"name": "CORP", "http_proxy": "http://x"}),
		409, "Conflict", "failed to create proxy: a proxy already exists with the specified name")

	h.expectError(h.call("GET", api("/proxies/abc"), tok, nil), 400, "Bad Request", `invalid value for "proxyID": "abc"`)
	h.expectError(h.call("GET", api("/proxies/999"), tok, nil), 404, "Not Found", "failed to get proxy: failed to get proxy: not found")
	h.expect(h.call("GET", path, tok, nil), 200, &px)

	// updates: given keys only; "" clears; the result must still be valid
	h.expect(h.call("PUT", path, tok, map[string]any{"https_proxy": "https://proxy.corp:443", "no_proxy": ""}), 200, &px)
	if px.HTTPSProxy != "https://proxy.corp:443" || px.NoProxy != "" || px.HTTPProxy != "http://proxy.corp:3128" || px.Username != "bob" {
		t.Fatalf("after update %+v", px)
	}
	h.expectError(h.call("PUT", path, tok, map[string]any{"name": ""}), 400, "Bad Request", "failed to validate update params: name cannot be empty")
	h.expectError(h.call("PUT", path, tok, map[string]any{"http_proxy": "gopher://x"}), 400, "Bad Request",
		`failed to validate update params: invalid proxy URL scheme "gopher"; supported schemes are http, https and socks5`)
	h.expect(h.call("PUT", path, tok, map[string]any{"http_proxy": ""}), 200, nil)
	h.expectError(h.call("PUT", path, tok, map[string]any{"https_proxy": ""}), 400, "Bad Request",
		"failed to update proxy: at least one of http_proxy or https_proxy must be set")
	h.expect(h.call("PUT", path, tok, map[string]any{}), 200, &px)
	if px.HTTPSProxy == "" {
		t.Fatalf("a refused update changed the proxy: %+v", px)
	}
	h.expect(h.call("PUT", api("/proxies/999"), tok, map[string]any{}), 404, nil)

	// pools reference it; an unknown id is refused
	h.expect(h.call("POST", api("/github/credentials"), tok, map[string]any{"name": "gh", "endpoint": "github.com",
		"auth_type": "pat", "pat": map[string]any{"oauth2_token": "t"}}), 200, nil)
	var repo apiv1.Repository
	h.expect(h.call("POST", api("/repositories"), tok, map[string]any{"owner": "o", "name": "r", "credentials_name": "gh",
		"webhook_secret": "s"}), 200, &repo)
	poolBody := map[string]any{"provider_name": "lxd", "max_runners": 1, "image": "i", "flavor": "f", "os_type": "linux",
		"os_arch": "amd64", "tags": []string{"t"}, "proxy_id": 999}
	h.expectError(h.call("POST", api("/repositories/"+repo.ID+"/pools"), tok, poolBody), 400, "Bad Request", "proxy with ID 999 does not exist")
	poolBody["proxy_id"] = px.ID
	var pool apiv1.Pool
	h.expect(h.call("POST", api("/repositories/"+repo.ID+"/pools"), tok, poolBody), 200, &pool)
	if pool.ProxyID != px.ID || pool.ProxyName != "corp" {
		t.Fatalf("pool %+v", pool)
	}
	gen := pool.Generation
	h.expectError(h.call("DELETE", path, tok, nil), 400, "Bad Request",
		"failed to delete proxy: cannot delete proxy while in use by pools or scale sets (pools "+pool.ID+")")
	h.expect(h.call("PUT", api("/pools/"+pool.ID), tok, map[string]any{"proxy_id": 999}), 400, nil)
	h.expect(h.call("PUT", api("/pools/"+pool.ID), tok, map[string]any{"proxy_id": 0}), 200, &pool)
	if pool.ProxyID != 0 || pool.ProxyName != "" || pool.Generation != gen+1 {
		t.Fatalf("pool after clearing the proxy %+v (generation was %d)", pool, gen)
	}
	h.expect(h.call("DELETE", path, tok, nil), 200, nil)
	h.expect(h.call("DELETE", path, tok, nil), 200, nil) // unknown id: 200
	h.expect(h.call("DELETE", api("/proxies/x"), tok, nil), 400, nil)
}

package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/golang-jwt/jwt/v5"
)

func TestInitAndURLsOrdering(t *testing.T) {
	h := newHarness(t, openSQLite)
	initReq := []struct{ method, path string }{
		{"GET", api("/repositories")}, {"GET", api("/controller")}, {"PUT", api("/controller")},
		{"GET", api("/controller-info")}, {"POST", api("/auth/login")}, {"GET", api("/no/such/route")},
		{"GET", api("")}, {"DELETE", api("/pools/x")},
	}
	for _, r := range initReq {
		h.expectError(h.call(r.method, r.path, "", nil), 409, "init_required", "Missing superuser")
	}
	tok := h.initialize()
	// The urls check runs before auth: no token still gets 409.
	for _, p := range []string{"/repositories", "/controller-info", "/no/such/route", "/metrics-token"} {
		h.expectError(h.call("GET", api(p), "", nil), 409, "urls_required",
			"Missing required URLs. Make sure you update the metadata and callback URLs")
	}
	// /controller is init+auth only.
	h.expectError(h.call("GET", api("/controller"), "", nil), 401, "Authentication failed", "")
	h.expect(h.call("GET", api("/controller"), tok, nil), 200, nil)
	// Only metadata_url and callback_url are needed; the agent URL derives from the callback URL.
	h.expect(h.call("PUT", api("/controller"), tok, map[string]any{"metadata_url": "http://m.example/api/v1/metadata"}), 200, nil)
	h.expectError(h.call("GET", api("/repositories"), tok, nil), 409, "urls_required",
		"Missing required URLs. Make sure you update the metadata and callback URLs")
	var ci apiv1.ControllerInfo
	h.expect(h.call("PUT", api("/controller"), tok, map[string]any{"callback_url": "http://c.example:8080/api/v1/callbacks"}), 200, &ci)
	if ci.AgentURL != "http://c.example:8080" || ci.ControllerWebhookURL != "" || ci.WebhookURL != "" {
		t.Errorf("controller = %+v", ci) // no controller_webhook_url without webhook_url
	}
	h.expect(h.call("GET", api("/repositories"), tok, nil), 200, nil)
	// After the middlewares, unknown routes are 404, and 401 without a token.
	h.expectError(h.call("GET", api("/no/such/route"), tok, nil), 404, "Not found", "Resource not found")
	h.expectError(h.call("PATCH", api("/repositories"), tok, nil), 404, "Not found", "Resource not found")
	h.expectError(h.call("GET", api("/no/such/route"), "", nil), 401, "Authentication failed", "")
	h.expectError(h.call("GET", "/elsewhere", "", nil), 404, "Not found", "Resource not found")
}

func TestFirstRunValidation(t *testing.T) {
	h := newHarness(t, openSQLite)
	body := func(kv ...string) map[string]string {
		m := map[string]string{"username": "admin", "email": "a@example.com", "password": adminPassword}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		body    any
		details string
	}{
		{"no username", body("username", ""), "missing username or email"},
		{"no email", body("email", ""), "missing username or email"},
		{"bad email", body("email", "nope"), "invalid email address"},
		{"bad username", body("username", "ad min"), "invalid username"},
		{"weak password", body("password", "password123"), "password is too weak*"},
		{"malformed", []byte(`{"username":1}`), "invalid request: json: cannot unmarshal number into field username of type string"},
	}
	for _, tt := range tests {
		r := h.call("POST", api("/first-run"), "", tt.body)
		var e apiv1.APIError
		h.expect(r, 400, &e)
		want := strings.TrimSuffix(tt.details, "*")
		if e.Error != "Bad Request" || (e.Details != want && !(strings.HasSuffix(tt.details, "*") && strings.HasPrefix(e.Details, want))) {
			t.Errorf("%s: %s", tt.name, r.body)
		}
	}
	h.initialize()
	h.expectError(h.call("POST", api("/first-run/"), "", body()), 409, "Conflict", "already initialized")
}

func TestTokenAcceptance(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	ctx := t.Context()
	claims := func(tok string) *auth.AdminClaims {
		tk, _ := auth.NewTokens([]byte(jwtSecret), 0, h.clock.Now)
		c, err := tk.VerifyAdmin(tok)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := claims(tok)
	forged := func(method jwt.SigningMethod, key any, edit func(*auth.AdminClaims)) string {
		cc := *c
		if edit != nil {
			edit(&cc)
		}
		s, err := jwt.NewWithClaims(method, &cc).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	metricsTok := func() string {
		var j apiv1.JWTResponse
		h.expect(h.call("GET", api("/metrics-token"), tok, nil), 200, &j)
		return j.Token
	}()
	bad := []struct{ name, header string }{
		{"no header value", "Bearer "},
		{"one part", "Bearer"},
		{"three parts", "Bearer " + tok + " x"},
		{"garbage", "Bearer not.a.token"},
		{"other secret", "Bearer " + forged(jwt.SigningMethodHS256, []byte("other"), nil)},
		{"alg none", "Bearer " + forged(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, nil)},
		{"alg HS512", "Bearer " + forged(jwt.SigningMethodHS512, []byte(jwtSecret), nil)},
		{"unknown user", "Bearer " + forged(jwt.SigningMethodHS256, []byte(jwtSecret), func(c *auth.AdminClaims) { c.User = "00000000-0000-4000-8000-000000000000" })},
		{"wrong generation", "Bearer " + forged(jwt.SigningMethodHS256, []byte(jwtSecret), func(c *auth.AdminClaims) { c.Generation++ })},
		{"metrics token", "Bearer " + metricsTok},
	}
	for _, b := range bad {
		req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL+api("/repositories"), nil)
		req.Header.Set("Authorization", b.header)
		r := h.send(req)
		if r.status != 401 || strings.TrimSpace(string(r.body)) != `{"error":"Authentication failed","details":""}` {
			t.Errorf("%s: %d %s", b.name, r.status, r.body)
		}
	}

	// Cookie auth, used only when the header is absent.
	req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL+api("/repositories"), nil)
	req.AddCookie(&http.Cookie{Name: "garm_token", Value: tok})
	if r := h.send(req); r.status != 200 {
		t.Errorf("cookie auth: %d %s", r.status, r.body)
	}
	req.Header.Set("Authorization", "Bearer bad")
	if r := h.send(req); r.status != 401 {
		t.Errorf("header wins over cookie: %d", r.status)
	}

	// The cookie alone does not authenticate a write another site's page makes a browser
	// send (CSRF); the same origin's does.
	host := strings.TrimPrefix(h.srv.URL, "http://")
	for _, c := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no browser headers", nil, 401},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://" + host}, 401},
		{"same-site other port", map[string]string{"Sec-Fetch-Site": "same-site"}, 401},
		{"other origin", map[string]string{"Origin": "http://evil.example"}, 401},
		{"null origin", map[string]string{"Origin": "null"}, 401},
		{"same-origin fetch", map[string]string{"Sec-Fetch-Site": "same-origin"}, 400},
		{"own origin", map[string]string{"Origin": "http://" + host}, 400},
	} {
		req, _ := http.NewRequestWithContext(ctx, "POST", h.srv.URL+api("/repositories"), strings.NewReader(`{}`))
		req.AddCookie(&http.Cookie{Name: "garm_token", Value: tok})
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		if r := h.send(req); r.status != c.want {
			t.Errorf("cookie-only POST, %s: %d %s, want %d", c.name, r.status, r.body, c.want)
		}
	}

	// Expiry, with the injected clock.
	h.clock.Add(24*time.Hour + time.Minute)
	h.expectError(h.call("GET", api("/repositories"), tok, nil), 401, "Authentication failed", "")
	tok = h.login()
	h.expect(h.call("GET", api("/repositories"), tok, nil), 200, nil)

	// A password reset (generation bump) revokes every token.
	u, err := h.store.UserByName(ctx, adminUser)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.UpdateUser(ctx, u.ID, func(u *garrison.User) error { u.Generation++; return nil }); err != nil {
		t.Fatal(err)
	}
	h.expectError(h.call("GET", api("/repositories"), tok, nil), 401, "Authentication failed", "")
	tok = h.login()
	h.expect(h.call("GET", api("/repositories"), tok, nil), 200, nil)

	// A non-admin is authenticated but not authorized (JSON, not text/plain: R-1).
	if _, err := h.store.UpdateUser(ctx, u.ID, func(u *garrison.User) error { u.IsAdmin = false; return nil }); err != nil {
		t.Fatal(err)
	}
	h.expectError(h.call("GET", api("/repositories"), tok, nil), 401, "Not Authorized", "")
	// A disabled user can neither use tokens nor log in.
	if _, err := h.store.UpdateUser(ctx, u.ID, func(u *garrison.User) error { u.Enabled = false; return nil }); err != nil {
		t.Fatal(err)
	}
	h.expectError(h.call("GET", api("/repositories"), tok, nil), 401, "Authentication failed", "")
	h.expectError(h.call("POST", api("/auth/login"), "", apiv1.PasswordLoginParams{Username: adminUser, Password: adminPassword}), 401, "Not Authorized", "")
}

func TestLogin(t *testing.T) {
	h := newHarness(t, openSQLite, func(o *httpapi.Options) {
		o.LoginLimit = auth.LimiterConfig{Burst: 3, Every: time.Hour}
	})
	h.initialize()
	for _, body := range []any{
		map[string]string{"username": adminUser, "password": "wrong"},
		map[string]string{"username": "nobody", "password": adminPassword},
		map[string]string{"username": adminUser},
	} {
		h.expectError(h.call("POST", api("/auth/login"), "", body), 401, "Not Authorized", "")
	}
	r := h.call("POST", api("/auth/login"), "", map[string]string{"username": adminUser, "password": adminPassword})
	h.expectError(r, 429, "Too Many Requests", "too many failed login attempts; try again later")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	h.clock.Add(time.Hour)
	h.login() // one attempt earned back, and success forgets the failures
	h.expectError(h.call("POST", api("/auth/login"), "", map[string]string{"username": adminUser, "password": "x"}), 401, "Not Authorized", "")
	h.login()
}

func TestMetricsAuth(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	var j apiv1.JWTResponse
	h.expect(h.call("GET", api("/metrics-token"), tok, nil), 200, &j)
	h.expectError(h.call("GET", "/metrics", "", nil), 401, "Authentication failed", "")
	h.expectError(h.call("GET", "/metrics", "garbage", nil), 401, "Authentication failed", "")
	// PM-2, PM-11, C-18: the admin login token is refused on /metrics; a metrics token works.
	h.expectError(h.call("GET", "/metrics", tok, nil), 401, "Authentication failed", "")
	for _, m := range []string{"GET", "HEAD", "OPTIONS"} {
		if r := h.call(m, "/metrics", j.Token, nil); r.status != 200 {
			t.Errorf("%s /metrics with a metrics token: %d %s", m, r.status, r.body)
		}
	}
	if r := h.call("POST", "/metrics", j.Token, nil); r.status != 404 {
		t.Errorf("POST /metrics: %d, want 404", r.status)
	}
	// The cookie is not consulted, even with a metrics token in it.
	req, err := http.NewRequestWithContext(t.Context(), "GET", h.srv.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "garm_token", Value: j.Token})
	h.expectError(h.send(req), 401, "Authentication failed", "")
	open := newHarness(t, openSQLite, func(o *httpapi.Options) { o.MetricsAuthDisabled = true })
	if r := open.call("GET", "/metrics/", "", nil); r.status != 200 {
		t.Errorf("open metrics: %d", r.status)
	}
	none := newHarness(t, openSQLite, func(o *httpapi.Options) { o.Metrics = nil })
	if r := none.call("GET", "/metrics", "", nil); r.status != 404 {
		t.Errorf("no metrics handler: %d", r.status)
	}
}

func TestHTTPMetricsRecorded(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	h.expect(h.call("GET", api("/repositories/"), tok, nil), 200, nil)
	mfs, err := h.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		if mf.GetName() != "garrison_http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["route"] == "GET /api/v1/repositories" && labels["code"] == "200" && labels["method"] == "GET" {
				found = true
			}
		}
	}
	if !found {
		t.Error("no request metric for GET /api/v1/repositories")
	}
}

func TestCORSAndOptions(t *testing.T) {
	h := newHarness(t, openSQLite)
	ctx := t.Context()
	req, _ := http.NewRequestWithContext(ctx, "OPTIONS", h.srv.URL+api("/repositories/"), nil)
	req.Header.Set("Origin", "https://ui.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	r := h.send(req)
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "https://ui.example.com" ||
		!strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "DELETE") {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
	req.Header.Set("Origin", "https://evil.example.com")
	if r := h.send(req); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("disallowed origin got %q", r.header.Get("Access-Control-Allow-Origin"))
	}
}

func TestHealthzAndSeams(t *testing.T) {
	var webhookPaths, instancePaths []string
	h := newHarness(t, openSQLite, func(o *httpapi.Options) {
		o.Webhooks = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			webhookPaths = append(webhookPaths, r.Method+" "+r.URL.Path)
		})
		o.Instances = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			instancePaths = append(instancePaths, r.URL.Path)
		})
	})
	var st map[string]string
	h.expect(h.call("GET", "/healthz", "", nil), 200, &st)
	if st["status"] != "ok" {
		t.Errorf("healthz = %v", st)
	}
	// Seams are reached with no init check.
	for _, p := range []string{"/webhooks", "/webhooks/", "/webhooks/abc", "/webhooks/abc/"} {
		h.expect(h.call("POST", p, "", []byte(`{}`)), 200, nil)
	}
	for _, p := range []string{"/api/v1/metadata/runner-registration-token/", "/api/v1/callbacks/status"} {
		h.expect(h.call("GET", p, "", nil), 200, nil)
	}
	if len(webhookPaths) != 4 || len(instancePaths) != 2 || instancePaths[0] != "/api/v1/metadata/runner-registration-token/" {
		t.Errorf("webhooks %v, instances %v", webhookPaths, instancePaths)
	}
	bare := newHarness(t, openSQLite, func(o *httpapi.Options) { o.Forge = nil; o.EnableWebhookManagement = false })
	h.expectError(bare.call("POST", "/webhooks/x", "", nil), 404, "Not found", "Resource not found")
	tok := bare.ready()
	h.expectError(bare.call("GET", api("/repositories/00000000-0000-4000-8000-000000000000/webhook"), tok, nil), 404, "Not found", "Resource not found")
}

func TestNewRequiresStoreAndSecret(t *testing.T) {
	if _, err := httpapi.New(httpapi.Options{JWTSecret: []byte("x")}); err == nil {
		t.Error("no store accepted")
	}
	if _, err := httpapi.New(httpapi.Options{Store: openSQLite(t)}); err == nil {
		t.Error("no secret accepted")
	}
}

func TestDebugIsAdminOnly(t *testing.T) {
	h := newHarness(t, openSQLite, func(o *httpapi.Options) {
		o.Debug = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("profile " + r.URL.Path))
		})
	})
	h.expectError(h.call("GET", "/debug/pprof/", "", nil), 409, "init_required", "Missing superuser")
	tok := h.initialize()
	h.expectError(h.call("GET", "/debug/pprof/heap", "", nil), 401, "Authentication failed", "")
	h.expectError(h.call("GET", "/debug/pprof/heap", "not-a-token", nil), 401, "Authentication failed", "")
	r := h.call("GET", "/debug/pprof/heap", tok, nil)
	if r.status != 200 || !strings.Contains(string(r.body), "profile /debug/pprof/heap") {
		t.Errorf("admin pprof: %d %s", r.status, r.body)
	}
}

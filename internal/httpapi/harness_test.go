package httpapi_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Test credentials of the admin user.
const (
	adminUser     = "admin"
	adminEmail    = "admin@example.com"
	adminPassword = "Tr0ub4dor&3-correct-horse-battery"
	jwtSecret     = "test-jwt-secret-0123456789abcdef"
	testHostname  = "garrison-test-host"
	testVersion   = "v0.0.0-test"
)

// openSQLite opens a fresh SQLite store in the test's temp dir.
func openSQLite(t testing.TB) store.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer("test passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// fakeProvider is a configured provider.
type fakeProvider struct{ name string }

func (p fakeProvider) Name() string                { return p.name }
func (p fakeProvider) Type() string                { return "external" }
func (p fakeProvider) Description() string         { return "test provider " + p.name }
func (p fakeProvider) Version() string             { return "v1.2.3" }
func (p fakeProvider) InterfaceVersions() []string { return []string{"v0.1.0", "v0.1.1"} }

// fakeForge records forge calls and answers from its fields.
type fakeForge struct {
	mu         sync.Mutex // guards the fields below
	hooks      map[string]apiv1.HookInfo
	removed    []int64
	removeErr  error
	lastReqURL string
}

func (f *fakeForge) InstallWebhook(_ context.Context, e garrison.Entity, req httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.hooks[e.ID]; ok {
		return apiv1.HookInfo{}, garrison.Errorf(garrison.EConflict, "hook already installed")
	}
	h := apiv1.HookInfo{ID: int64(len(f.hooks) + 1), URL: req.URL, Events: []string{"workflow_job"}, Active: true, InsecureSSL: req.InsecureSSL}
	f.hooks[e.ID] = h
	f.lastReqURL = req.URL
	return h, nil
}

func (f *fakeForge) WebhookInfo(_ context.Context, e garrison.Entity, _ httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.hooks[e.ID]
	if !ok {
		return h, garrison.ErrNotFound
	}
	return h, nil
}

func (f *fakeForge) UninstallWebhook(_ context.Context, e garrison.Entity, _ httpapi.WebhookRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.hooks, e.ID)
	return nil
}

func (f *fakeForge) RemoveRunner(_ context.Context, _ garrison.Entity, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, id)
	return f.removeErr
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness is a garrison API on a real store behind a real HTTP server.
type harness struct {
	t        testing.TB
	store    store.Store
	srv      *httptest.Server
	forge    *fakeForge
	clock    *clock
	registry *prometheus.Registry
	api      *httpapi.Server

	mu       sync.Mutex // guards notified
	notified []string
}

// newHarness starts a server on a store from open; edit adjusts the options.
func newHarness(t testing.TB, open func(testing.TB) store.Store, edit ...func(*httpapi.Options)) *harness {
	t.Helper()
	h := &harness{t: t, store: open(t), forge: &fakeForge{hooks: map[string]apiv1.HookInfo{}},
		clock: &clock{t: time.Now()}, registry: prometheus.NewRegistry()}
	opts := httpapi.Options{
		Store: h.store, JWTSecret: []byte(jwtSecret), TokenTTL: 24 * time.Hour,
		Version: testVersion, Hostname: testHostname,
		Providers:               []httpapi.Provider{fakeProvider{"lxd"}, fakeProvider{"incus"}},
		CORSOrigins:             []string{"https://ui.example.com"},
		EnableWebhookManagement: true,
		Metrics:                 promhttp.HandlerFor(prometheus.NewRegistry(), promhttp.HandlerOpts{}),
		Registerer:              h.registry,
		Forge:                   h.forge,
		Notify: func(ids ...string) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.notified = append(h.notified, ids...)
		},
		Now: h.clock.Now,
	}
	for _, e := range edit {
		e(&opts)
	}
	s, err := httpapi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.api = s
	h.srv = httptest.NewServer(s)
	t.Cleanup(h.srv.Close)
	return h
}

// response is what a call returned.
type response struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request the way garm-cli does: Authorization "Bearer <token>" (an empty
// token still sends the header), Accept JSON, and Content-Type JSON with a body. body
// may be nil, a []byte sent verbatim, or a value marshalled to JSON.
func (h *harness) call(method, path, token string, body any) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(h.t.Context(), method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return h.send(req)
}

func (h *harness) send(req *http.Request) response {
	h.t.Helper()
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

// api prefixes a path with /api/v1.
func api(path string) string { return "/api/v1" + path }

// expect fails unless r has the status, and decodes the body into out (if not nil).
func (h *harness) expect(r response, status int, out any) {
	h.t.Helper()
	if r.status != status {
		h.t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero() // decode into a fresh value
		if err := json.Unmarshal(r.body, out); err != nil {
			h.t.Fatalf("decoding %s: %v", r.body, err)
		}
	}
}

// expectError checks an error response: status, JSON content type and exact body.
func (h *harness) expectError(r response, status int, errText, details string) {
	h.t.Helper()
	if r.status != status {
		h.t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		h.t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		h.t.Fatalf("error body %s: %v", r.body, err)
	}
	if len(m) != 2 || m["error"] != errText || m["details"] != details {
		h.t.Errorf("error body = %s, want {error:%q, details:%q}", r.body, errText, details)
	}
}

// keys decodes a JSON object into a raw map for key checks.
func keys(t *testing.T, raw []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return m
}

// requireKeys fails unless every key is present in m.
func requireKeys(t *testing.T, m map[string]json.RawMessage, ks ...string) {
	t.Helper()
	for _, k := range ks {
		if _, ok := m[k]; !ok {
			t.Errorf("missing key %q in %v", k, mapKeys(m))
		}
	}
}

// forbidKeys fails if any key is present in m.
func forbidKeys(t *testing.T, m map[string]json.RawMessage, ks ...string) {
	t.Helper()
	for _, k := range ks {
		if _, ok := m[k]; ok {
			t.Errorf("unexpected key %q in %v", k, mapKeys(m))
		}
	}
}

func mapKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// initialize runs first-run and login and returns an admin token.
func (h *harness) initialize() string {
	h.t.Helper()
	h.expect(h.call("POST", api("/first-run"), "", apiv1.NewUserParams{
		Username: adminUser, Email: adminEmail, FullName: "Ada Admin", Password: adminPassword}), 200, nil)
	return h.login()
}

func (h *harness) login() string {
	h.t.Helper()
	var tok apiv1.JWTResponse
	h.expect(h.call("POST", api("/auth/login"), "", apiv1.PasswordLoginParams{Username: adminUser, Password: adminPassword}), 200, &tok)
	if tok.Token == "" {
		h.t.Fatal("empty token")
	}
	return tok.Token
}

// setURLs sets the controller URLs as garm-cli init does.
func (h *harness) setURLs(token string) {
	h.t.Helper()
	base := "https://garrison.example.com"
	h.expect(h.call("PUT", api("/controller"), token, map[string]any{
		"metadata_url": base + "/api/v1/metadata", "callback_url": base + "/api/v1/callbacks",
		"webhook_url": base + "/webhooks", "agent_url": base + "/agent"}), 200, nil)
}

// ready returns a token for an initialized controller with URLs set.
func (h *harness) ready() string {
	h.t.Helper()
	tok := h.initialize()
	h.setURLs(tok)
	return tok
}

// testCA returns a self-signed CA certificate in PEM.
func testCA(t testing.TB) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// testRSAKey returns an RSA private key in PEM, PKCS#1 or PKCS#8.
func testRSAKey(t testing.TB, pkcs8 bool) []byte {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if pkcs8 {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

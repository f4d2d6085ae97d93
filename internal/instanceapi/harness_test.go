package instanceapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
	"github.com/garrison-ci/garrison/provider"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testClock is a settable clock.
type testClock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// fakeForge is the consumer-side Forge for tests.
type fakeForge struct {
	mu    sync.Mutex // guards calls and fail
	calls int
	fail  error
	tools []provider.RunnerApplicationDownload
}

func (f *fakeForge) RegistrationToken(_ context.Context, _ garrison.Entity) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return "", f.fail
	}
	f.calls++
	return "reg-token-" + string(rune('0'+f.calls)), nil
}

func (f *fakeForge) RunnerDownloads(_ context.Context, _ garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return f.tools, nil
}

var testTools = []provider.RunnerApplicationDownload{
	{OS: "osx", Architecture: "x64", DownloadURL: "https://dl/osx.tgz", Filename: "osx.tgz"},
	{OS: "linux", Architecture: "x64", DownloadURL: "https://dl/linux-x64.tgz", Filename: "linux-x64.tgz", SHA256Checksum: "abc"},
	{OS: "win", Architecture: "x64", DownloadURL: "https://dl/win-x64.zip", Filename: "win-x64.zip"},
}

// env is a running instance API on a real SQLite store.
type env struct {
	t      *testing.T
	st     *sqlite.Store
	tokens *auth.Tokens
	clock  *testClock
	forge  *fakeForge
	srv    *httptest.Server
	ctrl   garrison.Controller
	ep     garrison.Endpoint
	entity garrison.Entity
	pool   garrison.Pool

	mu       sync.Mutex // guards notified
	notified []string
}

type envConfig struct {
	forge      garrison.ForgeType
	entityType garrison.EntityType
	extraSpecs string
	caBundle   []byte
	osType     string
	group      string // the pool's runner group
}

func newEnv(t *testing.T, cfg envConfig) *env {
	t.Helper()
	ctx := t.Context()
	if cfg.forge == "" {
		cfg.forge = garrison.GitHub
	}
	if cfg.entityType == "" {
		cfg.entityType = garrison.Repository
	}
	if cfg.osType == "" {
		cfg.osType = garrison.OSLinux
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{t: t, st: st, clock: &testClock{t: epoch}, forge: &fakeForge{tools: testTools}}
	if e.tokens, err = auth.NewTokens([]byte("test secret"), 0, e.clock.now); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Store: st, Forge: e.forge, Tokens: e.tokens, Now: e.clock.now,
		Log:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Notify: func(ids ...string) { e.mu.Lock(); e.notified = append(e.notified, ids...); e.mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	e.seed(ctx, cfg)
	return e
}

// seed creates the controller, endpoint, credentials, entity and pool.
func (e *env) seed(ctx context.Context, cfg envConfig) {
	t := e.t
	must(t, ok2(e.st.Controller(ctx)))
	var err error
	e.ctrl, err = e.st.UpdateController(ctx, func(c *garrison.Controller) error {
		c.MetadataURL = e.srv.URL + MetadataPrefix
		c.CallbackURL = e.srv.URL + CallbackPrefix
		return nil
	})
	must(t, err)
	e.ep, err = e.st.CreateEndpoint(ctx, garrison.Endpoint{
		Name: "ghe", Type: cfg.forge, BaseURL: "https://ghe.example", APIBaseURL: "https://ghe.example/api/v3/",
		UploadBaseURL: "https://ghe.example/uploads/", CACertBundle: cfg.caBundle,
	})
	must(t, err)
	cr, err := e.st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: cfg.forge, AuthType: garrison.AuthPAT, Endpoint: "ghe", PAT: "p"})
	must(t, err)
	ent := garrison.Entity{Type: cfg.entityType, Name: "widgets", CredentialsID: cr.ID, WebhookSecret: "s", Balancer: garrison.RoundRobin}
	if cfg.entityType == garrison.Repository {
		ent.Owner = "acme"
	}
	e.entity, err = e.st.CreateEntity(ctx, ent)
	must(t, err)
	pool := garrison.Pool{EntityID: e.entity.ID, ProviderName: "sim", MaxRunners: 5, Image: "img", Flavor: "small",
		OSType: cfg.osType, OSArch: garrison.ArchAMD64, Tags: garrison.TagsFromNames([]string{"linux", "x64"}), Enabled: true,
		RunnerGroup: cfg.group}
	if cfg.extraSpecs != "" {
		pool.ExtraSpecs = []byte(cfg.extraSpecs)
	}
	e.pool, err = e.st.CreatePool(ctx, pool)
	must(t, err)
}

func ok2[T any](_ T, err error) error { return err }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// addInstance stores an instance (creating/pending, attempt 1 unless mod says otherwise)
// and returns it with a token for its current create attempt.
func (e *env) addInstance(name string, mod func(*garrison.Instance)) (garrison.Instance, string) {
	e.t.Helper()
	i := garrison.Instance{Name: name, PoolID: e.pool.ID, ProviderName: "sim", OSType: e.pool.OSType, OSArch: garrison.ArchAMD64,
		Status: garrison.InstanceCreating, RunnerStatus: garrison.RunnerPending, CreateAttempt: 1,
		MetadataURL: e.ctrl.MetadataURL, CallbackURL: e.ctrl.CallbackURL}
	if mod != nil {
		mod(&i)
	}
	i, err := e.st.CreateInstance(e.t.Context(), i)
	must(e.t, err)
	return i, e.mint(i, i.CreateAttempt)
}

// mint returns an instance token for i and the given create attempt.
func (e *env) mint(i garrison.Instance, attempt int) string {
	e.t.Helper()
	tok, err := e.tokens.MintInstance(garrison.InstanceIdentity{ID: i.ID, Name: i.Name, PoolID: i.PoolID,
		Scope: e.entity.Type, Entity: e.entity.FullName(), CreateAttempt: attempt, ForgeType: e.entity.ForgeType},
		time.Duration(e.pool.BootstrapTimeout())*time.Minute)
	must(e.t, err)
	return tok
}

// setInstance edits a stored instance.
func (e *env) setInstance(name string, mod func(*garrison.Instance)) garrison.Instance {
	e.t.Helper()
	i, err := e.st.UpdateInstance(e.t.Context(), name, func(i *garrison.Instance) error { mod(i); return nil })
	must(e.t, err)
	return i
}

func (e *env) instance(name string) garrison.Instance {
	e.t.Helper()
	i, err := e.st.Instance(e.t.Context(), name)
	must(e.t, err)
	return i
}

// reply is a finished response.
type reply struct {
	status int
	header http.Header
	body   string
}

// do sends a request with "Bearer <token>" (no header when token is "").
func (e *env) do(method, path, token, body string) reply {
	e.t.Helper()
	auth := ""
	if token != "" {
		auth = "Bearer " + token
	}
	return e.doAuth(method, path, auth, body, "")
}

// doAuth sends a request with a raw Authorization header and content type.
func (e *env) doAuth(method, path, authz, body, contentType string) reply {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, strings.NewReader(body))
	must(e.t, err)
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := e.srv.Client().Do(req)
	must(e.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(e.t, err)
	return reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// want checks status, content type and (unless body is "*") the exact body.
func (r reply) want(t *testing.T, status int, contentType, body string) {
	t.Helper()
	if r.status != status || r.header.Get("Content-Type") != contentType || (body != "*" && r.body != body) {
		t.Fatalf("got %d %q %q, want %d %q %q", r.status, r.header.Get("Content-Type"), r.body, status, contentType, body)
	}
}

const authFailed = `{"error":"Authentication failed","details":""}`

// wantAuthFailed checks the §2 refusal.
func (r reply) wantAuthFailed(t *testing.T) {
	t.Helper()
	r.want(t, http.StatusUnauthorized, "application/json", authFailed)
}

// testCertPEM returns a self-signed certificate in PEM and its serial.
func testCertPEM(t *testing.T, serial int64) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: epoch, NotAfter: epoch.Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	must(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

var errForge = errors.New("forge down")

func itoa(n int) string { return strconv.Itoa(n) }

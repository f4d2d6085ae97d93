package scaleset

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

const testPAT = "pat-scaleset"

// env is a simulator with organization "acme" (repository acme/app) and a client for
// the organization.
type env struct {
	sim *forgesim.Sim
	url string
	ep  garrison.Endpoint
	c   *Client
	now func() time.Time
}

// testHold is the simulator's long-poll hold in tests.
const testHold = 50 * time.Millisecond

func newEnv(t *testing.T, so forgesim.ScaleSetOptions) *env {
	t.Helper()
	return newEnvClock(t, so, nil)
}

// clock is a settable clock shared by the simulator and the client.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newEnvClock is newEnv with the simulator and the client on clk (nil: the real clock).
func newEnvClock(t *testing.T, so forgesim.ScaleSetOptions, clk *clock) *env {
	t.Helper()
	if so.Hold == 0 {
		so.Hold = testHold
	}
	now := time.Now
	if clk != nil {
		now = clk.now
	}
	sim := forgesim.New(forgesim.Options{ScaleSets: so, Now: now})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken(testPAT)
	sim.AddOrg("acme")
	if err := sim.AddRepo("acme/app"); err != nil {
		t.Fatal(err)
	}
	e := &env{sim: sim, url: url, ep: garrison.Endpoint{Name: "sim", BaseURL: url, APIBaseURL: url + "/api/v3/"}, now: now}
	e.c = e.client(t, garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}, org(), Options{})
	return e
}

func org() garrison.Entity { return garrison.Entity{Type: garrison.Organization, Name: "acme"} }

// client builds a client with fast retries.
func (e *env) client(t *testing.T, cred garrison.Credentials, ent garrison.Entity, o Options) *Client {
	t.Helper()
	if o.Now == nil {
		o.Now = e.now
	}
	if o.RetryWaitMin == 0 {
		o.RetryWaitMin, o.RetryWaitMax = time.Millisecond, 5*time.Millisecond
	}
	c, err := New(e.ep, cred, ent, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// appCredentials registers a GitHub App with the simulator and returns its credentials.
func (e *env) appCredentials(t *testing.T) garrison.Credentials {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	e.sim.AddApp(42, &key.PublicKey, 7)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return garrison.Credentials{Name: "app", AuthType: garrison.AuthApp, AppID: 42, InstallationID: 7, PrivateKey: pemKey}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newSet creates scale set "linux" in the default group.
func (e *env) newSet(t *testing.T) ScaleSet {
	t.Helper()
	s, err := e.c.CreateScaleSet(ctxT(t), ScaleSet{Name: "linux", RunnerGroupID: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// poll gets messages until one comes (each empty poll is one hold of the simulator).
func poll(t *testing.T, q *Queue, last int64) *Message {
	t.Helper()
	for range 200 {
		m, err := q.Get(ctxT(t), last, 10)
		if err != nil {
			t.Fatal(err)
		}
		if m != nil {
			return m
		}
	}
	t.Fatal("no message")
	return nil
}

// types lists the event types of a message.
func types(m *Message) []string {
	var out []string
	for _, j := range m.Jobs {
		out = append(out, j.Type)
	}
	return out
}

// runnerSecret reads the simulator credential out of a JIT configuration.
func runnerSecret(t *testing.T, cfg JITConfig) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(cfg.Files[".credentials"])
	if err != nil {
		t.Fatal(err)
	}
	secret, err := forgesim.RunnerSecret(raw)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

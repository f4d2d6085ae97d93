package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/config/configref"
)

// keyProbe shows that one documented setting changes what the server does, or that the
// server refuses (or warns about) it. Each probe compares a server wired with the
// setting against one without it, looking at behavior (HTTP answers, log output, files,
// connections, provider processes) or, for settings that only pace or bound a
// component, at the options the server hands that component.
type keyProbe func(t *testing.T)

// allProbes returns a probe for every setting of internal/config/REFERENCE.md.
func allProbes(t *testing.T) map[string]keyProbe {
	all := map[string]keyProbe{}
	for _, ps := range []map[string]keyProbe{
		defaultProbes(), loggingProbes(), metricsAndJWTProbes(), apiServerProbes(),
		databaseProbes(), postgresProbes(), providerProbes(), reconcileProbes(), ignoredProbes(), replicaProbes(),
		objectStoreProbes(),
	} {
		for k, p := range ps {
			if _, dup := all[k]; dup {
				t.Fatalf("two probes for %s", k)
			}
			all[k] = p
		}
	}
	return all
}

// serialProbes change the process environment, so they do not run in parallel.
var serialProbes = map[string]bool{"provider.external.environment_variables": true}

// TestEveryConfigKeyHasAnEffect walks every setting of the configuration reference and
// runs its probe: no key may be accepted and then ignored. A key without a probe fails
// the test (write one, or refuse the key with config.ErrNotSupported); so does a probe
// for a key the reference no longer has. config's TestReferenceDocumentsEveryKey holds
// the reference to the keys the decoder knows.
func TestEveryConfigKeyHasAnEffect(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "internal", "config", "REFERENCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := configref.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	keyProbes := allProbes(t)
	documented := map[string]bool{}
	for _, e := range entries {
		documented[e.Key] = true
		probe, ok := keyProbes[e.Key]
		if !ok {
			t.Errorf("%s has no probe: show that it has an effect (or refuse it as not supported yet) in a probe", e.Key)
			continue
		}
		t.Run(e.Key, func(t *testing.T) {
			if !serialProbes[e.Key] {
				t.Parallel()
			}
			probe(t)
		})
	}
	for k := range keyProbes {
		if !documented[k] {
			t.Errorf("probe for %s, which REFERENCE.md does not document", k)
		}
	}
}

// writeConfig writes a config file with body into a new directory and returns its path.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// probeConfig loads the server configuration of a config file with body, on a new data
// directory.
func probeConfig(t *testing.T, body string) (Config, error) {
	t.Helper()
	return LoadConfig(Flags{DataDir: filepath.Join(t.TempDir(), "data"), ConfigFile: writeConfig(t, body)})
}

func mustConfig(t *testing.T, body string) Config {
	t.Helper()
	cfg, err := probeConfig(t, body)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// probeApp wires a server from a config file with body; its log (at the configured
// level) is in the returned buffer.
func probeApp(t *testing.T, body string) (*Server, *syncBuffer) {
	t.Helper()
	a, logs, err := tryApp(t, mustConfig(t, body))
	if err != nil {
		t.Fatal(err)
	}
	return a, logs
}

// tryApp wires a server from cfg.
func tryApp(t *testing.T, cfg Config) (*Server, *syncBuffer, error) {
	t.Helper()
	logs := &syncBuffer{}
	logger, file, err := newLogger(cfg.Logging, logs)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { _ = file.Close() })
	a, err := New(t.Context(), cfg, logger)
	if err != nil {
		return nil, logs, err
	}
	t.Cleanup(func() { _ = a.Close() })
	return a, logs, nil
}

// refused checks that a config file with body is refused with an error about key.
func refused(t *testing.T, body, key string) {
	t.Helper()
	_, err := probeConfig(t, body)
	var fe *config.FieldError
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Key, key) {
		t.Errorf("%q: error %v, want one about %s", body, err, key)
	}
}

// warned checks that a config file with body loads with a warning naming key, and the
// default configuration without one.
func warned(t *testing.T, body, key string) {
	t.Helper()
	if w := mustConfig(t, "").Warnings; len(w) != 0 {
		t.Errorf("warnings without a config: %q", w)
	}
	w := mustConfig(t, body).Warnings
	if !slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, key) }) {
		t.Errorf("%q: warnings %q, want one about %s", body, w, key)
	}
}

// differs fails the test unless the observation with the setting differs from the one
// without it.
func differs[T comparable](t *testing.T, what string, without, with T) {
	t.Helper()
	if without == with {
		t.Errorf("%s is %v with and without the setting", what, with)
	}
}

// serveHTTP sends a request to the app's handler and returns the response.
func serveHTTP(a *Server, method, path, token string, header http.Header) *http.Response {
	req := httptest.NewRequestWithContext(context.Background(), method, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	a.handler.ServeHTTP(rec, req)
	return rec.Result()
}

// probePassword is the admin password of the probes.
const probePassword = "probe-admin-passphrase-73%"

// adminToken creates the admin user in the app's store and returns a token for it signed
// with secret.
func adminToken(t *testing.T, a *Server, secret string) string {
	t.Helper()
	hash, err := auth.HashPassword(probePassword)
	if err != nil {
		t.Fatal(err)
	}
	u, err := a.store.CreateAdmin(t.Context(), garrison.User{Username: "admin", Email: "admin@example.com",
		PasswordHash: hash, Enabled: true, IsAdmin: true})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := auth.NewTokens([]byte(secret), a.cfg.JWTAuth.TimeToLive, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokens.MintAdmin(u)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

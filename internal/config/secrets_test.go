package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateSecrets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, created, err := LoadOrCreateSecrets(dir)
	if err != nil || !created {
		t.Fatalf("first call: created=%v err=%v", created, err)
	}
	if len(s.DatabasePassphrase) != PassphraseLen || len(s.JWTSecret) != JWTSecretLen {
		t.Fatalf("lengths %d, %d", len(s.DatabasePassphrase), len(s.JWTSecret))
	}
	if weak(s.DatabasePassphrase) || weak(s.JWTSecret) {
		t.Fatal("generated secrets fail the strength check applied to configured ones")
	}
	fi, err := os.Stat(filepath.Join(dir, SecretsFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode %v, %v", fi.Mode(), err)
	}
	again, created, err := LoadOrCreateSecrets(dir)
	if err != nil || created || again != s {
		t.Fatalf("second call: %+v created=%v err=%v", again, created, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".secrets-*")); len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

// TestSetJWTSecret: the JWT secret is replaced, the passphrase kept, the file stays
// private and no temporary file is left; a missing file is an error, not a new file.
func TestSetJWTSecret(t *testing.T) {
	dir := t.TempDir()
	before, _, err := LoadOrCreateSecrets(dir)
	if err != nil {
		t.Fatal(err)
	}
	const adopted = `aF7kQ2mZ9xR4vT8wL3nB6cY1dH5gJ0sP2eU7iO4qM9tX3yK6zW1rV5bN8fG2hA0`
	if err := SetJWTSecret(dir, adopted); err != nil {
		t.Fatal(err)
	}
	after, created, err := LoadOrCreateSecrets(dir)
	if err != nil || created {
		t.Fatalf("reading back: created=%v err=%v", created, err)
	}
	if after.JWTSecret != adopted || after.DatabasePassphrase != before.DatabasePassphrase {
		t.Fatalf("got %+v", after)
	}
	fi, err := os.Stat(filepath.Join(dir, SecretsFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".secrets-*")); len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
	empty := t.TempDir()
	if err := SetJWTSecret(empty, adopted); err == nil {
		t.Fatal("a data directory without secrets got a JWT secret alone")
	}
	if err := SetJWTSecret(dir, ""); err == nil {
		t.Fatal("an empty secret was accepted")
	}
}

func TestLoadOrCreateSecretsConcurrent(t *testing.T) {
	dir := t.TempDir()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex // guards results
		results []Secrets
	)
	for range 4 {
		wg.Go(func() {
			s, _, err := LoadOrCreateSecrets(dir)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			results = append(results, s)
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, s := range results {
		if s != results[0] {
			t.Fatal("concurrent starts saw different secrets")
		}
	}
}

func TestLoadOrCreateSecretsRejects(t *testing.T) {
	good := "database_passphrase = \"" + strongPass + "\"\njwt_secret = \"" + strongJWT + "\"\n"
	tests := []struct {
		name, body string
		mode       os.FileMode
		want       string
	}{
		{"group readable", good, 0o640, "readable by other users"},
		{"world readable", good, 0o604, "chmod 600"},
		{"short passphrase", "database_passphrase = \"x\"\njwt_secret = \"y\"\n", 0o600, "database_passphrase"},
		{"no jwt secret", "database_passphrase = \"" + strongPass + "\"\n", 0o600, "jwt_secret"},
		{"unknown key", good + "extra = 1\n", 0o600, `unknown key "extra"`},
		{"not toml", "=", 0o600, "reading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, SecretsFileName, tt.body, tt.mode)
			_, _, err := LoadOrCreateSecrets(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	dir := t.TempDir()
	writeFile(t, dir, SecretsFileName, good, 0o644)
	if _, _, err := LoadOrCreateSecrets(dir); !errors.Is(err, ErrInsecureSecretsFile) {
		t.Fatalf("err = %v, want ErrInsecureSecretsFile", err)
	}
}

func TestApplySecrets(t *testing.T) {
	s := Secrets{DatabasePassphrase: "generated-pass", JWTSecret: "generated-jwt"}
	c := Default("/d")
	c.ApplySecrets(s)
	if c.Database.Passphrase != s.DatabasePassphrase || c.JWTAuth.Secret != s.JWTSecret {
		t.Fatalf("defaults not filled: %+v", c)
	}
	c.Database.Passphrase, c.JWTAuth.Secret = "from-file", "from-file-jwt"
	c.ApplySecrets(s)
	if c.Database.Passphrase != "from-file" || c.JWTAuth.Secret != "from-file-jwt" {
		t.Fatal("file values were overridden")
	}
}

func TestRandomString(t *testing.T) {
	a, b := randomString(64), randomString(64)
	if len(a) != 64 || a == b || strings.Trim(a, alphabet) != "" {
		t.Fatalf("randomString gave %q and %q", a, b)
	}
}

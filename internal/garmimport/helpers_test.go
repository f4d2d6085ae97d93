package garmimport

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// fixtureDir is a copy of ../shared/fixtures/garm-afda4e7: a real GARM afda4e76 SQLite
// installation (see its MANIFEST.md). Tests never touch it: they copy it first.
const fixtureDir = "testdata/garm-afda4e7"

// Secrets of the fixture (MANIFEST.md, "Opening it").
const (
	fixturePassphrase = "AcmeFixturePassphrase-32chars-A1"
	fixtureJWTSecret  = "aF7kQ2mZ9xR4vT8wL3nB6cY1dH5gJ0sP2eU7iO4qM9tX3yK6zW1rV5bN8fG2hA0"
	fixtureController = "8decccd0-9ccc-402d-a358-18365f07b461"
)

// copyFixture copies the fixture's database files and config into a fresh directory
// laid out as GARM had it (garm.db and blob-garm.db side by side) and returns the path
// of the config, whose placeholders name that directory.
func copyFixture(t testing.TB) (dir, configPath string) {
	t.Helper()
	dir = t.TempDir()
	for _, name := range []string{"garm.db", "blob-garm.db"} {
		copyFile(t, filepath.Join(fixtureDir, name), filepath.Join(dir, name))
	}
	cfg, err := os.ReadFile(filepath.Join(fixtureDir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// GARM's port becomes one nobody listens on, so that the "is GARM still running"
	// probe passes without depending on what else runs on this machine.
	text := strings.NewReplacer("${DATA_DIR}", dir, "${PROVIDER_DIR}", dir, "${CONFIG_DIR}", dir,
		"port = 9510", "port = "+strconv.Itoa(closedPort(t))).Replace(string(cfg))
	configPath = filepath.Join(dir, "config.toml")
	if err := os.WriteFile(configPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, configPath
}

// closedPort returns a loopback port that was free a moment ago.
func closedPort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// openCopy opens an SQLite database file read-write (a test's own copy).
func openCopy(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// sealedColumn reads one sealed value from a fixture table.
func sealedColumn(t testing.TB, table, column, where string, args ...any) []byte {
	t.Helper()
	dir, _ := copyFixture(t)
	db := openCopy(t, filepath.Join(dir, "garm.db"))
	var b []byte
	if err := db.QueryRow(`SELECT `+column+` FROM `+table+` WHERE `+where, args...).Scan(&b); err != nil {
		t.Fatalf("reading %s.%s: %v", table, column, err)
	}
	return b
}

// sealEnvelope seals plain as GARM's current code does (spec A.5.3), with the given DARE
// cipher suite: the test side of openEnvelope, to build values GARM could have written.
func sealEnvelope(t testing.TB, passphrase string, plain []byte, suite byte) []byte {
	t.Helper()
	salt := make([]byte, envelopeNonceLen)
	_, _ = rand.Read(salt)
	key, err := hkdf.Key(sha256.New, []byte(passphrase), salt, "", 32)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]int, len(salt))
	for i, b := range salt {
		nonce[i] = int(b)
	}
	b, err := json.Marshal(map[string]any{"nonce": nonce, "data": sealDARE(t, key, plain, suite)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sealDARE writes a DARE 2.0 stream (minio/sio's layout, spec A.5.3).
func sealDARE(t testing.TB, key, plain []byte, suite byte) []byte {
	t.Helper()
	if len(plain) == 0 {
		return nil
	}
	aead := testAEAD(t, suite, key)
	var base [12]byte
	_, _ = rand.Read(base[:])
	base[0] &^= dareFinalFlag
	var out []byte
	for seq := uint32(0); len(plain) > 0; seq++ {
		n := min(len(plain), dareMaxPayload)
		h := make([]byte, dareHeaderSize)
		h[0], h[1] = dareVersion, suite
		binary.LittleEndian.PutUint16(h[2:4], uint16(n-1))
		copy(h[4:], base[:])
		if n == len(plain) {
			h[4] |= dareFinalFlag
		}
		var nonce [12]byte
		copy(nonce[:], h[4:])
		binary.LittleEndian.PutUint32(nonce[8:], binary.LittleEndian.Uint32(nonce[8:])^seq)
		out = append(out, h...)
		out = aead.Seal(out, nonce[:], plain[:n], h[:4])
		plain = plain[n:]
	}
	return out
}

func testAEAD(t testing.TB, suite byte, key []byte) cipher.AEAD {
	t.Helper()
	var (
		aead cipher.AEAD
		err  error
	)
	if suite == dareSuiteChaCha {
		aead, err = chacha20poly1305.New(key)
	} else {
		var block cipher.Block
		if block, err = aes.NewCipher(key); err == nil {
			aead, err = cipher.NewGCM(block)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return aead
}

// sealLegacy seals plain as GARM v0.1.3 and earlier did (spec A.5.4).
func sealLegacy(t testing.TB, passphrase string, plain []byte) []byte {
	t.Helper()
	aead := testAEAD(t, dareSuiteAESGCM, []byte(passphrase))
	nonce := make([]byte, legacyNonceLen)
	_, _ = rand.Read(nonce)
	return aead.Seal(nonce, nonce, plain, nil)
}

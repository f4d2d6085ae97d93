package garmimport

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestUnsealFixture opens values GARM itself sealed (the fixture) and finds the
// cleartexts its MANIFEST lists.
func TestUnsealFixture(t *testing.T) {
	u := newUnsealer(fixturePassphrase)
	for _, tc := range []struct {
		name, table, column, where string
		arg                        any
		check                      func(t *testing.T, plain []byte)
	}{
		{"PAT payload", "github_credentials", "payload", "id = ?", 1, func(t *testing.T, plain []byte) {
			wantJSONField(t, plain, "oauth2_token", "ghp_acmeFixturePat0002bbbbbbbbbbbbbbbb")
		}},
		{"Gitea payload", "gitea_credentials", "payload", "id = ?", 1, func(t *testing.T, plain []byte) {
			wantJSONField(t, plain, "oauth2_token", "acme0gitea0token0000000000000000000000a1")
		}},
		{"webhook secret", "repositories", "webhook_secret", "id = ?", "729633b9-9fc7-460c-ba6d-399a72595613", func(t *testing.T, plain []byte) {
			if string(plain) != "acme-app-hook-secret-rotated-8d21" {
				t.Errorf("secret = %q", plain)
			}
		}},
		{"template (JSON string of base64)", "templates", "data", "id = ?", 5, func(t *testing.T, plain []byte) {
			var b64 string
			if err := json.Unmarshal(plain, &b64); err != nil {
				t.Fatal(err)
			}
			text, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatal(err)
			}
			wantSHA256(t, text, "e6146d1db4a6439bcb0c4fd843a454e758c4fbfd3cd7316f15b58c0d4521a240")
		}},
		{"system template (19 KB)", "templates", "data", "id = ?", 1, func(t *testing.T, plain []byte) {
			var b64 string
			if err := json.Unmarshal(plain, &b64); err != nil {
				t.Fatal(err)
			}
			text, _ := base64.StdEncoding.DecodeString(b64)
			wantSHA256(t, text, "9dfe3b35eb91d8f2dfb791849bb608e3cb09ecab4a8e515da67e3a164bb849f0")
		}},
		{"JIT configuration", "instances", "jit_configuration", "name = ?", "wid-e7ublmqlzzu2", func(t *testing.T, plain []byte) {
			wantSHA256(t, plain, "cde9ba203c399bb4544927b6271db006c13ce3e202064c0b37189e63246eaa28")
		}},
		{"proxy credentials", "proxies", "credentials", "id = ?", 1, func(t *testing.T, plain []byte) {
			wantJSONField(t, plain, "password", "Proxy-Pass-A!1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, format, err := u.open(sealedColumn(t, tc.table, tc.column, tc.where, tc.arg))
			if err != nil {
				t.Fatal(err)
			}
			if format != FormatEnvelope {
				t.Errorf("format = %s, want envelope", format)
			}
			tc.check(t, plain)
		})
	}
}

func wantJSONField(t *testing.T, plain []byte, key, want string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(plain, &m); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if m[key] != want {
		t.Errorf("%s = %v, want %s", key, m[key], want)
	}
}

func wantSHA256(t *testing.T, b []byte, want string) {
	t.Helper()
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("sha256 = %s, want %s (%d bytes)", got, want, len(b))
	}
}

// TestUnsealWrongPassphrase: a fixture value under another passphrase is refused as
// corrupt, never returned as garbage.
func TestUnsealWrongPassphrase(t *testing.T) {
	sealed := sealedColumn(t, "github_credentials", "payload", "id = ?", 1)
	_, _, err := newUnsealer("AnotherPassphrase-32chars-Zz9!xQ").open(sealed)
	if !errors.Is(err, errCorrupt) {
		t.Fatalf("err = %v, want errCorrupt", err)
	}
}

// TestUnsealRoundTrip opens values sealed the way GARM seals them: both DARE cipher
// suites, empty values, one package, a package of exactly 64 KiB, several packages, and
// the legacy form.
func TestUnsealRoundTrip(t *testing.T) {
	u := newUnsealer(fixturePassphrase)
	for _, size := range []int{0, 1, 20, dareMaxPayload - 1, dareMaxPayload, dareMaxPayload + 1, 204800} {
		plain := make([]byte, size)
		_, _ = rand.Read(plain)
		for _, suite := range []byte{dareSuiteAESGCM, dareSuiteChaCha} {
			got, format, err := u.open(sealEnvelope(t, fixturePassphrase, plain, suite))
			if err != nil || format != FormatEnvelope || !bytes.Equal(got, plain) {
				t.Errorf("size %d suite %d: format %s, err %v, equal %v", size, suite, format, err, bytes.Equal(got, plain))
			}
		}
		got, format, err := u.open(sealLegacy(t, fixturePassphrase, plain))
		if err != nil || format != FormatLegacy || !bytes.Equal(got, plain) {
			t.Errorf("legacy size %d: format %s, err %v", size, format, err)
		}
	}
}

// TestUnsealTampered: every change to a stream is detected: bit flips in a header or a
// payload, truncation, a dropped final package, trailing bytes, swapped packages.
func TestUnsealTampered(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	plain := make([]byte, 2*dareMaxPayload+100)
	_, _ = rand.Read(plain)
	stream := sealDARE(t, key, plain, dareSuiteAESGCM)
	pkg := dareHeaderSize + dareMaxPayload + dareTagSize
	swapped := append(append(append([]byte{}, stream[pkg:2*pkg]...), stream[:pkg]...), stream[2*pkg:]...)
	for _, tc := range []struct {
		name   string
		stream []byte
	}{
		{"version", flip(stream, 0)},
		{"suite", flip(stream, 1)},
		{"length", flip(stream, 2)},
		{"final flag", flip(stream, 4)},
		{"nonce", flip(stream, 10)},
		{"payload", flip(stream, 100)},
		{"tag of the last package", flip(stream, len(stream)-1)},
		{"truncated", stream[:len(stream)-1]},
		{"no final package", stream[:2*pkg]},
		{"trailing bytes", append(append([]byte{}, stream...), 0)},
		{"packages swapped", swapped},
		{"header only", stream[:dareHeaderSize]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := openDARE(key, tc.stream); !errors.Is(err, errCorrupt) {
				t.Fatalf("err = %v, want errCorrupt", err)
			}
		})
	}
	if got, err := openDARE(key, stream); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("the untouched stream does not open: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0x01
	return c
}

// TestUnsealMalformedEnvelope: JSON that is not a well-formed envelope is refused.
func TestUnsealMalformedEnvelope(t *testing.T) {
	u := newUnsealer(fixturePassphrase)
	for _, v := range []string{
		`{}`,
		`{"nonce":[1,2,3],"data":""}`,
		`{"nonce":[` + repeatInts(31, 1) + `,256],"data":""}`,
		`{"nonce":[` + repeatInts(31, 1) + `,-1],"data":""}`,
		`{"nonce":[` + repeatInts(32, 1) + `],"data":"IAATAA=="}`,
		`short`,
		``,
	} {
		if _, _, err := u.open([]byte(v)); !errors.Is(err, errCorrupt) {
			t.Errorf("%q: err = %v, want errCorrupt", v, err)
		}
	}
	// An empty stream is an empty value (GARM seals "" as "data":"").
	got, _, err := u.open([]byte(`{"nonce":[` + repeatInts(32, 1) + `],"data":""}`))
	if err != nil || len(got) != 0 {
		t.Errorf("empty stream: %q, %v", got, err)
	}
}

// repeatInts is n copies of v, comma-separated: the inside of a JSON array.
func repeatInts(n, v int) string {
	return strings.TrimSuffix(strings.Repeat(strconv.Itoa(v)+",", n), ",")
}

// FuzzUnseal feeds arbitrary column contents to the opener: it must never panic, and
// whatever it opens under the fixture passphrase must have been sealed under it (random
// input essentially never is).
func FuzzUnseal(f *testing.F) {
	f.Add(sealedColumn(f, "github_credentials", "payload", "id = ?", 1))
	f.Add(sealEnvelope(f, fixturePassphrase, bytes.Repeat([]byte("x"), dareMaxPayload+3), dareSuiteChaCha))
	f.Add(sealLegacy(f, fixturePassphrase, []byte("legacy")))
	f.Add([]byte(`{"nonce":[],"data":""}`))
	f.Add([]byte{0x20, 0, 0xff, 0xff})
	u := newUnsealer(fixturePassphrase)
	f.Fuzz(func(t *testing.T, sealed []byte) {
		_, format, err := u.open(sealed)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v does not wrap errCorrupt", err)
			}
			return
		}
		if format != FormatEnvelope && format != FormatLegacy {
			t.Fatalf("format %q", format)
		}
	})
}

// FuzzOpenDARE decrypts arbitrary streams under a fixed key: no panic, and every error
// wraps errCorrupt.
func FuzzOpenDARE(f *testing.F) {
	key := bytes.Repeat([]byte{3}, 32)
	f.Add(sealDARE(f, key, []byte("hello"), dareSuiteAESGCM))
	f.Add(sealDARE(f, key, bytes.Repeat([]byte("y"), dareMaxPayload+1), dareSuiteChaCha))
	f.Fuzz(func(t *testing.T, stream []byte) {
		if _, err := openDARE(key, stream); err != nil && !errors.Is(err, errCorrupt) {
			t.Fatalf("error %v does not wrap errCorrupt", err)
		}
	})
}

package httpapi

import (
	"crypto/x509"
	"net/url"
	"os"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/garrison-ci/garrison"
)

// FixtureCertPEM and FixtureAppKeyPEM give the external tests the same inputs.
var FixtureCertPEM, FixtureAppKeyPEM = testCertPEM, testAppKeyPEM

// testCertPEM is a self-signed test CA certificate in PEM (testdata/ca.pem). Fuzz
// targets read fixed inputs: generating keys in every fuzz worker is too slow.
func testCertPEM(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testAppKeyPEM is an RSA private key in PKCS#1 PEM, as GitHub issues App keys
// (testdata/app-key.pem, made for these tests only).
func testAppKeyPEM(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/app-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzParseCABundle: an endpoint's ca_cert_bundle is admin input that the forge clients
// later load. Parsing never panics; a refusal is a 400 (EInvalid); an accepted bundle
// is one the clients can load (x509.CertPool takes it) and parses again to itself.
func FuzzParseCABundle(f *testing.F) {
	cert := testCertPEM(f)
	for _, s := range [][]byte{cert, append(append([]byte{}, cert...), cert...), append([]byte("junk\n"), cert...),
		append(append([]byte{}, cert...), []byte("trailing")...), []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
		[]byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"), {}, []byte("  \n")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, bundle []byte) {
		out, err := parseCABundle("ca_cert_bundle", bundle)
		if err != nil {
			if garrison.CodeOf(err) != garrison.EInvalid {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		if !x509.NewCertPool().AppendCertsFromPEM(out) {
			t.Fatalf("accepted bundle %q does not load into a certificate pool", bundle)
		}
		again, err := parseCABundle("ca_cert_bundle", out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("accepted bundle does not parse to itself: %v", err)
		}
	})
}

// FuzzCheckAppKey: a GitHub App's private_key_bytes is admin input that the GitHub
// client later signs with. Checking never panics; a refusal is a 400; an accepted key
// is one the client's JWT signer reads.
func FuzzCheckAppKey(f *testing.F) {
	key := testAppKeyPEM(f)
	for _, s := range [][]byte{key, append([]byte("junk\n"), key...), key[:len(key)/2],
		[]byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), []byte("-----BEGIN RSA PRIVATE KEY-----\n\n-----END RSA PRIVATE KEY-----\n"), {}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key []byte) {
		if err := checkAppKey(key); err != nil {
			if garrison.CodeOf(err) != garrison.EInvalid {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		if _, err := jwt.ParseRSAPrivateKeyFromPEM(key); err != nil {
			t.Fatalf("accepted key the JWT signer refuses: %v", err)
		}
	})
}

// FuzzCheckURL: endpoint and controller URLs are admin input. Checking never panics, a
// refusal is a 400, and an accepted URL is absolute http(s) with a host.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://github.example/api/v3/", "http://10.0.0.1:3000", "ftp://x", "https://", "//host/p",
		"https://h/%zz", "https://[::1]:80/", "javascript:alert(1)", "https://h\x00/", " https://h", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if err := checkURL("base_url", raw); err != nil {
			if garrison.CodeOf(err) != garrison.EInvalid {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("accepted %q: %+v %v", raw, u, err)
		}
	})
}

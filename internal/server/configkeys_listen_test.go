package server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

func apiServerProbes() map[string]keyProbe {
	return map[string]keyProbe{
		"apiserver.bind": func(t *testing.T) {
			port := freePort(t)
			addr := probeServe(t, fmt.Sprintf("[apiserver]\nbind = \"127.0.0.2\"\nport = %d\n", port), nil)
			if want := fmt.Sprintf("127.0.0.2:%d", port); addr != want {
				t.Errorf("listening on %s, want %s", addr, want)
			}
			checkHealthz(t, http.DefaultClient, "http://"+addr)
		},
		"apiserver.port": func(t *testing.T) {
			port := freePort(t)
			addr := probeServe(t, fmt.Sprintf("[apiserver]\nport = %d\n", port), nil)
			if want := fmt.Sprintf("127.0.0.1:%d", port); addr != want {
				t.Errorf("listening on %s, want %s", addr, want)
			}
			checkHealthz(t, http.DefaultClient, "http://"+addr)
		},
		"apiserver.use_tls": func(t *testing.T) {
			pair := newCertPair(t)
			addr := probeServe(t, pair.config(t, freePort(t), ""), nil)
			checkHealthz(t, pair.client(), "https://"+addr)
			plain := probeServe(t, fmt.Sprintf("[apiserver]\nport = %d\n", freePort(t)), nil)
			if _, err := pair.client().Get("https://" + plain + "/healthz"); err == nil {
				t.Error("the server without use_tls answered HTTPS")
			}
		},
		"apiserver.tls.certificate": func(t *testing.T) {
			pair := newCertPair(t)
			addr := probeServe(t, pair.config(t, freePort(t), ""), nil)
			conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pair.pool})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if got := conn.ConnectionState().PeerCertificates[0].Raw; !bytes.Equal(got, pair.cert.Raw) {
				t.Error("the server presents another certificate than the configured one")
			}
		},
		"apiserver.tls.key": func(t *testing.T) {
			pair, other := newCertPair(t), newCertPair(t)
			addr := probeServe(t, pair.config(t, freePort(t), ""), nil)
			checkHealthz(t, pair.client(), "https://"+addr) // the handshake signs with the key
			mismatched := strings.Replace(pair.config(t, freePort(t), ""), pair.keyFile, other.keyFile, 1)
			refused(t, mismatched, "apiserver.tls")
		},
		"apiserver.tls.ca_certificate": func(t *testing.T) {
			pair := newCertPair(t)
			warned(t, fmt.Sprintf("[apiserver.tls]\nca_certificate = %q\n", pair.certFile), "apiserver.tls.ca_certificate")
		},
		"apiserver.cors_origins":         corsProbe("cors_origins"),
		"apiserver.cors_allowed_origins": corsProbe("cors_allowed_origins"),
		"apiserver.trusted_proxies":      trustedProxiesProbe,
		"apiserver.webui.enable":         webUIProbe,
	}
}

// webUIProbe: the web UI answers under /ui/ by default and with enable = true; with
// enable = false /ui/ is an unknown route.
func webUIProbe(t *testing.T) {
	status := func(body string) (int, string) {
		a, _ := probeApp(t, body)
		resp := serveHTTP(a, http.MethodGet, "/ui/", "", nil)
		return resp.StatusCode, resp.Header.Get("Content-Type")
	}
	for _, body := range []string{"", "[apiserver.webui]\nenable = true\n"} {
		if code, ct := status(body); code != http.StatusOK || !strings.HasPrefix(ct, "text/html") {
			t.Errorf("config %q: GET /ui/ = %d %s, want 200 text/html", body, code, ct)
		}
	}
	if code, _ := status("[apiserver.webui]\nenable = false\n"); code != http.StatusNotFound {
		t.Errorf("enable = false: GET /ui/ = %d, want 404", code)
	}
}

// trustedProxiesProbe: behind a trusted proxy, logins from different X-Forwarded-For
// clients are limited apart; without the key they all count against the proxy's address.
func trustedProxiesProbe(t *testing.T) {
	limited := func(body string) int {
		a, _ := probeApp(t, body)
		_, err := a.store.CreateAdmin(t.Context(), garrison.User{Username: "admin", Email: "a@example.com",
			PasswordHash: "$2a$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinva", Enabled: true, IsAdmin: true})
		if err != nil {
			t.Fatal(err)
		}
		// Sent at once: every attempt counts when it starts, however slow the checks.
		var n atomic.Int32
		var wg sync.WaitGroup
		for i := range 15 {
			wg.Go(func() {
				r := httptest.NewRequest("POST", "/api/v1/auth/login", strings.NewReader(`{"username":"admin","password":"wrong"}`))
				r.RemoteAddr = "192.0.2.1:1234"
				r.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i+1))
				w := httptest.NewRecorder()
				a.handler.ServeHTTP(w, r)
				if w.Code == http.StatusTooManyRequests {
					n.Add(1)
				}
			})
		}
		wg.Wait()
		return int(n.Load())
	}
	without := limited("")
	with := limited("[apiserver]\ntrusted_proxies = [\"192.0.2.0/24\"]\n")
	if without == 0 || with != 0 {
		t.Errorf("logins refused with 429: %d without trusted_proxies, %d with; want some, none", without, with)
	}
}

// corsProbe: an origin allowed by key gets CORS headers; without the key it does not.
func corsProbe(key string) keyProbe {
	return func(t *testing.T) {
		const origin = "https://ui.example.com"
		allowed := func(body string) string {
			a, _ := probeApp(t, body)
			resp := serveHTTP(a, http.MethodGet, "/healthz", "", http.Header{"Origin": {origin}})
			return resp.Header.Get("Access-Control-Allow-Origin")
		}
		with := allowed(fmt.Sprintf("[apiserver]\n%s = [%q]\n", key, origin))
		if with != origin {
			t.Errorf("Access-Control-Allow-Origin = %q, want %q", with, origin)
		}
		differs(t, "Access-Control-Allow-Origin", allowed(""), with)
	}
}

// listeningRE finds the listen address in the server's listening line.
var listeningRE = regexp.MustCompile(`msg="garrison server listening" addr=(\S+)`)

// probeServe runs Run with a config file with body until the test ends and returns
// the address it listens on. logs, if not nil, receives its log.
func probeServe(t *testing.T, body string, logs *syncBuffer) string {
	t.Helper()
	if logs == nil {
		logs = &syncBuffer{}
	}
	cfg := mustConfig(t, body)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	var addr string
	waitFor(t, "the server to listen", func() bool {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("serve ended: %v\n%s", err, logs.String())
		default:
		}
		m := listeningRE.FindStringSubmatch(logs.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	return addr
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	_, port, err := net.SplitHostPort(freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(port, &n)
	return n
}

// checkHealthz fails the test unless base/healthz answers 200 through client.
func checkHealthz(t *testing.T, client *http.Client, base string) {
	t.Helper()
	resp, err := client.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s/healthz: %d", base, resp.StatusCode)
	}
}

// certPair is a self-signed certificate for the loopback addresses, in files.
type certPair struct {
	cert              *x509.Certificate
	pool              *x509.CertPool
	certFile, keyFile string
}

func newCertPair(t *testing.T) certPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "garrison probe"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := certPair{cert: cert, pool: x509.NewCertPool(),
		certFile: filepath.Join(dir, "cert.pem"), keyFile: filepath.Join(dir, "key.pem")}
	p.pool.AddCert(cert)
	writePEM(t, p.certFile, "CERTIFICATE", der)
	writePEM(t, p.keyFile, "EC PRIVATE KEY", keyDER)
	return p
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// config is a config file serving HTTPS on port with the pair, plus extra.
func (p certPair) config(t *testing.T, port int, extra string) string {
	t.Helper()
	return fmt.Sprintf("[apiserver]\nport = %d\nuse_tls = true\n[apiserver.tls]\ncertificate = %q\nkey = %q\n%s",
		port, p.certFile, p.keyFile, extra)
}

// client trusts the pair's certificate.
func (p certPair) client() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.pool}}}
}

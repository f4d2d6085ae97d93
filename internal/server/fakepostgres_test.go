package server

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakePostgres speaks just enough of the PostgreSQL wire protocol to see how a client
// connects: it answers TLS requests with "no", asks for a cleartext password, and then
// refuses the login.
type fakePostgres struct {
	ln net.Listener

	mu       sync.Mutex // guards contacts
	contacts []pgContact
}

// pgContact is what one connection told the fake server.
type pgContact struct {
	sslRequested bool
	params       map[string]string // startup parameters: user, database, ...
	password     string
}

// value returns what the contact says for a GARM config key.
func (c pgContact) value(key string) string {
	switch key {
	case "username":
		return c.params["user"]
	case "password":
		return c.password
	default:
		return c.params[key]
	}
}

// Protocol codes of the startup phase.
const (
	pgSSLRequest    = 80877103
	pgGSSENCRequest = 80877104
)

func startFakePostgres(t *testing.T) *fakePostgres {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakePostgres{ln: ln}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { f.handle(conn) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	return f
}

func (f *fakePostgres) port() string {
	_, p, _ := net.SplitHostPort(f.ln.Addr().String())
	return p
}

// section is a [database.postgresql] section with a dsn aimed at the fake.
func (f *fakePostgres) section(extra string) string {
	return fmt.Sprintf("[database.postgresql]\ndsn = \"host=127.0.0.1 port=%s user=u dbname=d sslmode=disable\"\n%s", f.port(), extra)
}

// seen returns the connections so far.
func (f *fakePostgres) seen() []pgContact {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]pgContact(nil), f.contacts...)
}

// handle serves one connection. It records what it learns before it answers, so that
// a client that got the answer finds it recorded.
func (f *fakePostgres) handle(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	f.mu.Lock()
	i := len(f.contacts)
	f.contacts = append(f.contacts, pgContact{})
	f.mu.Unlock()
	record := func(fn func(c *pgContact)) {
		f.mu.Lock()
		defer f.mu.Unlock()
		fn(&f.contacts[i])
	}
	for {
		msg, err := readStartup(conn)
		if err != nil {
			return
		}
		code := binary.BigEndian.Uint32(msg)
		if code == pgSSLRequest || code == pgGSSENCRequest {
			record(func(c *pgContact) { c.sslRequested = c.sslRequested || code == pgSSLRequest })
			if _, err := conn.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		}
		record(func(c *pgContact) { c.params = startupParams(msg[4:]) })
		break
	}
	// AuthenticationCleartextPassword, then read the PasswordMessage.
	if _, err := conn.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3}); err != nil {
		return
	}
	var head [5]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil || head[0] != 'p' {
		return
	}
	body := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
	if _, err := io.ReadFull(conn, body); err != nil {
		return
	}
	record(func(c *pgContact) { c.password = string(bytes.TrimRight(body, "\x00")) })
	// ErrorResponse: FATAL 28P01 invalid_password.
	fields := "SFATAL\x00C28P01\x00Mthe probe refuses every login\x00\x00"
	msg := append([]byte{'E'}, binary.BigEndian.AppendUint32(nil, uint32(4+len(fields)))...)
	_, _ = conn.Write(append(msg, fields...))
}

// readStartup reads a length-prefixed startup-phase message and returns its body.
func readStartup(r io.Reader) ([]byte, error) {
	var n uint32
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	if n < 8 || n > 10000 {
		return nil, fmt.Errorf("startup message of %d bytes", n)
	}
	msg := make([]byte, n-4)
	_, err := io.ReadFull(r, msg)
	return msg, err
}

// startupParams parses the name\0value\0...\0 list of a StartupMessage.
func startupParams(b []byte) map[string]string {
	out := map[string]string{}
	parts := strings.Split(string(b), "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		if parts[i] == "" {
			break
		}
		out[parts[i]] = parts[i+1]
	}
	return out
}

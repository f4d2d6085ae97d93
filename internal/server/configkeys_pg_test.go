package server

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/store/postgres"
)

func postgresProbes() map[string]keyProbe {
	// discrete is GARM's way to name the database server, aimed at the fake server.
	discrete := func(pg *fakePostgres, override string) string {
		keys := map[string]string{
			"hostname": `"127.0.0.1"`, "port": pg.port(), "username": `"probe_user"`,
			"password": `"probe-password"`, "database": `"probe_db"`, "sslmode": `"disable"`,
		}
		if k, v, ok := strings.Cut(override, " = "); ok {
			keys[k] = v
		}
		var b strings.Builder
		b.WriteString("[database]\nbackend = \"postgresql\"\n[database.postgresql]\n")
		for _, k := range []string{"hostname", "port", "username", "password", "database", "sslmode"} {
			fmt.Fprintf(&b, "%s = %s\n", k, keys[k])
		}
		return b.String()
	}
	// contact connects a server configured by body and returns what the fake saw.
	contact := func(t *testing.T, pg *fakePostgres, body string) []pgContact {
		t.Helper()
		if _, _, err := tryApp(t, mustConfig(t, body)); err == nil {
			t.Fatal("the server opened a store on the fake PostgreSQL server")
		}
		return pg.seen()
	}
	param := func(name, value string) keyProbe {
		return func(t *testing.T) {
			pg := startFakePostgres(t)
			seen := contact(t, pg, discrete(pg, name+" = \""+value+"\""))
			if len(seen) == 0 || seen[len(seen)-1].value(name) != value {
				t.Errorf("the server connected with %+v, want %s %q", seen, name, value)
			}
		}
	}
	return map[string]keyProbe{
		"database.postgresql.dsn": func(t *testing.T) {
			pg := startFakePostgres(t)
			dsn := fmt.Sprintf("host=127.0.0.1 port=%s user=dsn_user dbname=dsn_db sslmode=disable", pg.port())
			seen := contact(t, pg, fmt.Sprintf("[database]\nbackend = \"postgresql\"\n[database.postgresql]\ndsn = %q\n", dsn))
			if len(seen) == 0 || seen[0].params["user"] != "dsn_user" || seen[0].params["database"] != "dsn_db" {
				t.Errorf("the server connected with %+v, want the dsn's user and database", seen)
			}
		},
		"database.postgresql.hostname": func(t *testing.T) {
			pg := startFakePostgres(t)
			if n := len(contact(t, pg, discrete(pg, ""))); n == 0 {
				t.Fatal("no connection to hostname 127.0.0.1")
			}
			other := startFakePostgres(t)
			_, _, err := tryApp(t, mustConfig(t, discrete(other, `hostname = "127.0.0.3"`)))
			if len(other.seen()) != 0 || err == nil || !strings.Contains(err.Error(), "127.0.0.3") {
				t.Errorf("with hostname 127.0.0.3: %v, %d connections to 127.0.0.1", err, len(other.seen()))
			}
		},
		"database.postgresql.port": func(t *testing.T) {
			pg, other := startFakePostgres(t), startFakePostgres(t)
			contact(t, pg, discrete(pg, "port = "+other.port()))
			if len(pg.seen()) != 0 || len(other.seen()) == 0 {
				t.Errorf("with port %s: %d connections there, %d to the other port", other.port(), len(other.seen()), len(pg.seen()))
			}
		},
		"database.postgresql.username": param("username", "garrison_probe"),
		"database.postgresql.database": param("database", "garrison_probe_db"),
		"database.postgresql.password": param("password", "s3cret-probe"),
		"database.postgresql.sslmode": func(t *testing.T) {
			ssl := func(mode string) bool {
				pg := startFakePostgres(t)
				for _, c := range contact(t, pg, discrete(pg, `sslmode = "`+mode+`"`)) {
					if c.sslRequested {
						return true
					}
				}
				return false
			}
			if ssl("disable") || !ssl("require") {
				t.Error("sslmode does not decide whether the server asks for TLS")
			}
		},
		"database.postgresql.max_open_conns": poolProbe("max_open_conns = 7", func(s *postgres.Store) any {
			return s.PoolStats().MaxOpenConnections
		}, 7),
		"database.postgresql.max_idle_conns": poolProbe("max_idle_conns = 3", func(s *postgres.Store) any {
			return s.Options().MaxIdleConns
		}, 3),
		"database.postgresql.conn_max_lifetime_mins": poolProbe("conn_max_lifetime_mins = 7", func(s *postgres.Store) any {
			return s.Options().ConnMaxLifetime
		}, 7*time.Minute),
		"database.postgresql.conn_max_idle_time_secs": poolProbe("conn_max_idle_time_secs = 42", func(s *postgres.Store) any {
			return s.Options().ConnMaxIdleTime
		}, 42*time.Second),
	}
}

// poolProbe: with setting, the PostgreSQL store's pool (observed by get) is want, and
// without it something else. It needs a real server (GARRISON_TEST_POSTGRES_DSN); the
// postgres package's TestPoolOptions shows each option shapes the pool.
func poolProbe(setting string, get func(*postgres.Store) any, want any) keyProbe {
	return func(t *testing.T) {
		base := os.Getenv("GARRISON_TEST_POSTGRES_DSN")
		if base == "" {
			t.Skip("set GARRISON_TEST_POSTGRES_DSN=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable to run")
		}
		observe := func(extra string) any {
			body := fmt.Sprintf("[database]\nbackend = \"postgresql\"\n[database.postgresql]\ndsn = %q\n%s", testSchema(t, base), extra)
			a, _ := probeApp(t, body)
			return get(a.backend.(*postgres.Store))
		}
		with := observe(setting + "\n")
		if with != want {
			t.Errorf("with %s: %v, want %v", setting, with, want)
		}
		differs(t, "the pool", observe(""), with)
	}
}

// testSchema creates a schema on the test server, dropped when the test ends, and
// returns a DSN that uses it.
func testSchema(t *testing.T, base string) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "garrison_probe_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
		_ = admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

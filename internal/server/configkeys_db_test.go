package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
)

// Strong database passphrases for the probes (32 characters).
const (
	probePassphrase1 = "Jq7Vd2LmX9zKp4RtW8yBn3HsJ6fGc1Ae"
	probePassphrase2 = "Zt5Qw8NmR3vLx7Kp2HdY9sBc4FgJ6eUa"
)

func databaseProbes() map[string]keyProbe {
	return map[string]keyProbe{
		"database.backend": func(t *testing.T) {
			pg := startFakePostgres(t)
			a, _ := probeApp(t, "")
			if _, ok := a.backend.(*sqlite.Store); !ok {
				t.Errorf("the default backend is %T, want SQLite", a.store)
			}
			_, _, err := tryApp(t, mustConfig(t, "[database]\nbackend = \"postgresql\"\n"+pg.section("")))
			if err == nil || len(pg.seen()) == 0 {
				t.Errorf("with backend postgresql the server did not connect to PostgreSQL (%v)", err)
			}
		},
		"database.passphrase": func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			open := func(passphrase string) error {
				_, _, err := tryApp(t, configIn(t, data, fmt.Sprintf("[database]\npassphrase = %q\n", passphrase)))
				return err
			}
			if err := open(probePassphrase1); err != nil {
				t.Fatal(err)
			}
			if err := open(probePassphrase1); err != nil {
				t.Fatalf("the same passphrase again: %v", err)
			}
			if err := open(probePassphrase2); !errors.Is(err, store.ErrWrongPassphrase) {
				t.Errorf("another passphrase: %v, want store.ErrWrongPassphrase", err)
			}
		},
		"database.debug": func(t *testing.T) {
			statements := func(body string) bool {
				_, logs := probeApp(t, "[logging]\nlog_level = \"debug\"\n"+body)
				return strings.Contains(logs.String(), `msg="sql statement"`)
			}
			if !statements("[database]\ndebug = true\n") {
				t.Error("database.debug logged no SQL statement")
			}
			if statements("") {
				t.Error("SQL statements logged without database.debug")
			}
		},
		"database.sqlite3.db_file": func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "elsewhere.db")
			a, _ := probeApp(t, fmt.Sprintf("[database.sqlite3]\ndb_file = %q\n", path))
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the database is not at db_file: %v", err)
			}
			if got := a.backend.(*sqlite.Store).Path(); got != path {
				t.Errorf("the store is at %s, want %s", got, path)
			}
		},
		"database.sqlite3.busy_timeout_seconds": func(t *testing.T) {
			busy := func(body string) time.Duration {
				a, _ := probeApp(t, body)
				return a.backend.(*sqlite.Store).Options().BusyTimeout
			}
			if got := busy("[database.sqlite3]\nbusy_timeout_seconds = 9\n"); got != 9*time.Second {
				t.Errorf("busy timeout %s, want 9s", got)
			}
			differs(t, "the busy timeout", busy(""), busy("[database.sqlite3]\nbusy_timeout_seconds = 9\n"))
		},
	}
}

// configIn loads the server configuration of a config file with body on data.
func configIn(t *testing.T, data, body string) Config {
	t.Helper()
	cfg, err := LoadConfig(Flags{DataDir: data, ConfigFile: writeConfig(t, body)})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

package postgres_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

const dsnEnv = "GARRISON_TEST_POSTGRES_DSN"

// schemas maps each store opened by a test to the DSN of its schema.
var schemas sync.Map // store.Store -> string

// baseDSN returns the DSN of the test server or skips the test.
func baseDSN(t testing.TB) string {
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		t.Skip("set " + dsnEnv + "=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable to run")
	}
	return dsn
}

// freshSchema creates a randomly named schema, dropped at cleanup, and returns a DSN that
// uses it.
func freshSchema(t testing.TB) string {
	base := baseDSN(t)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	name := "garrison_test_" + hex.EncodeToString(randBytes(6))
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return withSearchPath(t, base, name)
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// withSearchPath adds search_path=schema to a URL or key=value DSN.
func withSearchPath(t testing.TB, dsn, schema string) string {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func openDSN(t testing.TB, dsn string, newSealer store.NewSealer) (store.Store, error) {
	s, err := postgres.Open(context.Background(), dsn, newSealer)
	if err != nil {
		return nil, err
	}
	schemas.Store(store.Store(s), dsn)
	t.Cleanup(func() { _ = s.Close() })
	return s, nil
}

func open(t *testing.T) store.Store {
	s, err := openDSN(t, freshSchema(t), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openAt opens a store on a new schema migrated up to version only.
func openAt(t *testing.T, version int64) store.Store {
	dsn := freshSchema(t)
	s, err := postgres.OpenAt(t.Context(), dsn, storetest.NewSealer(storetest.Passphrase), version)
	if err != nil {
		t.Fatal(err)
	}
	schemas.Store(store.Store(s), dsn)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func reopen(t *testing.T, s store.Store, newSealer store.NewSealer) (store.Store, error) {
	dsn, ok := schemas.Load(s)
	if !ok {
		t.Fatal("unknown store")
	}
	return openDSN(t, dsn.(string), newSealer)
}

// rawContains scans every row of every table of the store's schema as text, looking for
// needle as text and as hex (how bytea values print).
func rawContains(t *testing.T, s store.Store, needle []byte) bool {
	db := rawDB(t, s)
	ctx := t.Context()
	rows, err := db.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if len(tables) == 0 {
		t.Fatal("no tables found")
	}
	hexNeedle := []byte(hex.EncodeToString(needle))
	for _, table := range tables {
		var dump []byte
		q := fmt.Sprintf(`SELECT COALESCE(string_agg(t::text, E'\n'), '') FROM %q t`, table)
		if err := db.QueryRowContext(ctx, q).Scan(&dump); err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		if bytes.Contains(dump, needle) || bytes.Contains(dump, hexNeedle) {
			return true
		}
	}
	return false
}

// rawDB opens the store's schema directly.
func rawDB(t *testing.T, s store.Store) *sql.DB {
	dsn, ok := schemas.Load(s)
	if !ok {
		t.Fatal("unknown store")
	}
	db, err := sql.Open("pgx", dsn.(string))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestConformance(t *testing.T) {
	baseDSN(t)
	storetest.Run(t, open, storetest.WithReopen(reopen), storetest.WithRawContains(rawContains),
		storetest.WithDB(rawDB), storetest.WithOpenAt(openAt))
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) store.Store {
		s, err := openDSN(b, freshSchema(b), storetest.NewSealer(storetest.Passphrase))
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

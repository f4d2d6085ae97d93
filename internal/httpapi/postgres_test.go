package httpapi_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver for schema setup

	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

const postgresDSNEnv = "GARRISON_TEST_POSTGRES_DSN"

// TestGarmCLIFlowsPostgres runs the garm-cli flows on PostgreSQL when configured.
func TestGarmCLIFlowsPostgres(t *testing.T) {
	if os.Getenv(postgresDSNEnv) == "" {
		t.Skip("set " + postgresDSNEnv + " (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) " +
			"to run the garm-cli flows on PostgreSQL")
	}
	runGarmCLIFlows(t, openPostgres)
}

// openPostgres opens a store in a fresh schema, dropped when the test ends.
func openPostgres(t testing.TB) store.Store {
	t.Helper()
	base := os.Getenv(postgresDSNEnv)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "garrison_httpapi_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	s, err := postgres.Open(t.Context(), u.String(), storetest.NewSealer("test passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

package storetest

import (
	"errors"
	"testing"

	"github.com/garrison-ci/garrison/internal/store"
)

var migrationCases = []testCase{
	{"Migrations/ReopenIsNoOp", func(t *testing.T, b Backend, s store.Store) {
		if b.Reopen == nil || b.DB == nil {
			t.Skip("backend cannot reopen or query its database")
		}
		db := b.DB(t, s)
		count := func(query string) int {
			t.Helper()
			var n int
			must(t, db.QueryRowContext(t.Context(), query).Scan(&n))
			return n
		}
		applied := count(`SELECT COUNT(*) FROM schema_migrations`)
		if applied == 0 {
			t.Fatal("no migrations recorded")
		}
		must(t, s.Close())
		for range 2 {
			r, err := b.Reopen(t, s, NewSealer(Passphrase))
			must(t, err)
			must(t, r.Close())
		}
		wantEqual(t, "migrations after reopening", count(`SELECT COUNT(*) FROM schema_migrations`), applied)
		wantEqual(t, "github.com endpoints", count(`SELECT COUNT(*) FROM endpoints`), 1)
		wantEqual(t, "salts", count(`SELECT COUNT(*) FROM meta`), 2)
	}},
	{"Migrations/NewerSchemaRefused", func(t *testing.T, b Backend, s store.Store) {
		if b.Reopen == nil || b.DB == nil {
			t.Skip("backend cannot reopen or query its database")
		}
		must(t, s.Close())
		_, err := b.DB(t, s).ExecContext(t.Context(), `INSERT INTO schema_migrations (version, name, applied_at)
			VALUES (999999, 'from_the_future', CURRENT_TIMESTAMP)`)
		must(t, err)
		r, err := b.Reopen(t, s, NewSealer(Passphrase))
		if !errors.Is(err, store.ErrSchemaTooNew) {
			if r != nil {
				_ = r.Close()
			}
			t.Fatalf("got %v, want store.ErrSchemaTooNew", err)
		}
		t.Logf("refused with: %v", err)
	}},
}

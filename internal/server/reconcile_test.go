package server

import (
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison/internal/config"
)

// TestLeasesOnlyForPostgreSQL: replicas share pool leases through PostgreSQL; a SQLite
// server is the only one, so its reconciler gets none (and triages idle pools without a
// lease write per pool).
func TestLeasesOnlyForPostgreSQL(t *testing.T) {
	st, err := OpenStore(t.Context(), config.Database{Backend: config.BackendSQLite,
		SQLite: config.SQLite{DBFile: filepath.Join(t.TempDir(), "g.db")}, Passphrase: "Vq7#pL2@xR9!mK4$wT6^bN8&cJ3*zH5e"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for _, tt := range []struct {
		backend config.Backend
		want    bool
	}{{config.BackendSQLite, false}, {config.BackendPostgres, true}} {
		a := &Server{store: st, cfg: Config{Config: &config.Config{}}}
		a.cfg.Database.Backend = tt.backend
		if got := a.leases() != nil; got != tt.want {
			t.Errorf("%s: leases %v, want %v", tt.backend, got, tt.want)
		}
	}
}

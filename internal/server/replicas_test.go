package server

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// pgReplicaConfig is the config of a replica on a schema of the test PostgreSQL server
// (skipping without one): replicas share the schema and the passphrase.
func pgReplicaConfig(t *testing.T) string {
	t.Helper()
	base := os.Getenv("GARRISON_TEST_POSTGRES_DSN")
	if base == "" {
		t.Skip("set GARRISON_TEST_POSTGRES_DSN=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable to run")
	}
	return fmt.Sprintf("[database]\nbackend = \"postgresql\"\npassphrase = %q\n[database.postgresql]\ndsn = %q\n",
		"Vq7#pL2@xR9!mK4$wT6^bN8&cJ3*zH5e", testSchema(t, base))
}

// TestReplicasAnnounceWork: work one replica is told about reaches the others through
// PostgreSQL; each replica has an id of its own, and an installation's channel is its own.
func TestReplicasAnnounceWork(t *testing.T) {
	body := pgReplicaConfig(t)
	a, _ := probeApp(t, body)
	b, _ := probeApp(t, body)
	if a.replicaID == b.replicaID || a.replicaID == "" {
		t.Fatalf("replica ids %q and %q", a.replicaID, b.replicaID)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	wg.Go(func() { a.runNotifications(ctx) })
	wg.Go(func() { b.runNotifications(ctx) })
	waitFor(t, "b to hear a's work", func() bool {
		a.notifyPools("pool-of-a")
		return b.bus.Stats().Received > 0
	})
	waitFor(t, "a to hear b's work", func() bool {
		b.notifyScaleSet(7)
		return a.bus.Stats().Received > 0
	})
	ctrl, err := a.store.Controller(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ch := notifyChannel(ctrl.ID); !strings.HasPrefix(ch, "garrison_") || len(ch) > 63 || strings.Contains(ch, "-") {
		t.Errorf("channel %q is not a plain PostgreSQL identifier", ch)
	}
}

// TestSQLiteHasNoReplicaBus: a SQLite server is the only replica: no notifications.
func TestSQLiteHasNoReplicaBus(t *testing.T) {
	a, _ := probeApp(t, "")
	if a.bus != nil {
		t.Fatal("a SQLite server runs a replica notification bus")
	}
	a.notifyPools("p1") // only the local reconciler: never blocks, never fails
}

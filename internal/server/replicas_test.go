package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
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
	for _, r := range []*Server{a, b} {
		wg.Go(func() { r.runNotifications(ctx) })
		wg.Go(func() { r.cluster.heartbeat(ctx) })
	}
	waitFor(t, "both replicas' heartbeats", func() bool {
		reps, self, err := a.cluster.Replicas(t.Context())
		return err == nil && self == a.replicaID && len(reps) == 2
	})
	waitFor(t, "b to hear a's work", func() bool {
		a.notifyPools("pool-of-a")
		return b.bus.Stats().Received > 0
	})
	waitFor(t, "a to hear b's work", func() bool {
		b.notifyScaleSet(7)
		return a.bus.Stats().Received > 0
	})
	rec := httptest.NewRecorder()
	b.metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`garrison_replica_notifications_total{direction="received"}`, `garrison_leases_held{kind="pool"}`,
		`garrison_fencing_refusals_total{claim_kind="pool"} 0`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("b's metrics lack %s", want)
		}
	}
	ctrl, err := a.store.Controller(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ch := notifyChannel(ctrl.ID); !strings.HasPrefix(ch, "garrison_") || len(ch) > 63 || strings.Contains(ch, "-") {
		t.Errorf("channel %q is not a plain PostgreSQL identifier", ch)
	}
	cancel()
	wg.Wait()
	if reps, err := a.store.ListReplicas(t.Context()); err != nil || len(reps) != 0 {
		t.Errorf("after both stopped: replicas %+v, %v", reps, err)
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

// replicaProbes: [server] names the replica in its claims and sets their lifetime.
func replicaProbes() map[string]keyProbe {
	type replica struct {
		id, holder, owner string
		ttl               time.Duration
	}
	observe := func(t *testing.T, body string) replica {
		a, _ := probeApp(t, body)
		o := a.reconcileOptions(nil)
		ctrl, err := a.store.Controller(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		reps, self, err := a.cluster.Replicas(t.Context())
		if err != nil || len(reps) != 1 || reps[0].ID != self {
			t.Fatalf("replicas %+v, self %q: %v", reps, self, err)
		}
		return replica{id: self, holder: o.Holder, owner: scaleSetOwner(ctrl.ID, self), ttl: o.LeaseTTL}
	}
	return map[string]keyProbe{
		"server.replica_id": func(t *testing.T) {
			with := observe(t, "[server]\nreplica_id = \"probe-replica\"\n")
			if with.id != "probe-replica" || with.holder != "probe-replica" || !strings.HasSuffix(with.owner, "-probe-replica") {
				t.Errorf("with replica_id: %+v", with)
			}
			differs(t, "the replica id", observe(t, "").id, with.id)
		},
		"server.lease_ttl": func(t *testing.T) {
			with := observe(t, "[server]\nlease_ttl = \"17s\"\n")
			if with.ttl != 17*time.Second {
				t.Errorf("with lease_ttl: %v", with.ttl)
			}
			differs(t, "the lease time", observe(t, "").ttl, with.ttl)
		},
	}
}

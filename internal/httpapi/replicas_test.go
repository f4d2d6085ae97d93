package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/garrison-ci/garrison/internal/store"
)

// storeCluster is the cluster view of a store's claims, with fixed replicas, answering
// as replica self.
type storeCluster struct {
	st       store.Store
	replicas []garrison.Replica
	self     string
}

func (c storeCluster) Replicas(context.Context) ([]garrison.Replica, string, error) {
	return c.replicas, c.self, nil
}

func (c storeCluster) Claims(ctx context.Context) ([]garrison.Claim, error) {
	return c.st.ListClaims(ctx)
}
func (c storeCluster) LeaseTTL() time.Duration { return time.Minute }

// TestReplicasAndClaimsRoutes: GET /replicas lists the replicas with the one answering
// marked and the silent ones not alive; GET /claims lists who holds what, with tokens.
func TestReplicasAndClaimsRoutes(t *testing.T) {
	var cluster storeCluster
	f := newFixture(t, func(o *httpapi.Options) {
		cluster = storeCluster{st: o.Store.(store.Store), self: "replica-a"}
		o.Cluster = &cluster
	})
	ctx := t.Context()
	now := f.h.clock.Now()
	for _, r := range []struct {
		id     string
		silent time.Duration
	}{{"replica-a", 45 * time.Second}, {"replica-b", 75 * time.Second}} {
		cluster.replicas = append(cluster.replicas, garrison.Replica{ID: r.id, Address: r.id + ":9997", Version: "v1",
			StartedAt: now.Add(-time.Hour), HeartbeatAt: now.Add(-r.silent)})
	}
	if _, held, err := cluster.st.Lease(ctx, store.PoolClaim(f.poolID), "replica-b", time.Minute); err != nil || !held {
		t.Fatalf("lease: %v %v", held, err)
	}
	var reps []apiv1.Replica
	f.h.expect(f.h.call("GET", api("/replicas"), f.tok, nil), 200, &reps)
	want := []struct {
		id          string
		alive, self bool
	}{{"replica-a", true, true}, {"replica-b", false, false}}
	if len(reps) != len(want) {
		t.Fatalf("replicas %+v", reps)
	}
	for i, w := range want {
		if r := reps[i]; r.ID != w.id || r.Alive != w.alive || r.Self != w.self || r.Address != w.id+":9997" || r.Version != "v1" {
			t.Errorf("replica %d = %+v, want %+v", i, r, w)
		}
	}
	var claims []apiv1.Claim
	f.h.expect(f.h.call("GET", api("/claims"), f.tok, nil), 200, &claims)
	if len(claims) != 1 || !claims[0].Held {
		t.Fatalf("claims %+v, want b's live pool claim", claims)
	}
	f.h.clock.Add(2 * time.Minute) // b's claim lapses
	f.h.expect(f.h.call("GET", api("/claims"), f.tok, nil), 200, &claims)
	if len(claims) != 1 || claims[0].Kind != "pool" || claims[0].Key != f.poolID || claims[0].Holder != "replica-b" ||
		claims[0].Token != 1 || claims[0].Held {
		t.Errorf("claims %+v, want b's expired pool claim with token 1", claims)
	}
	f.h.expect(f.h.call("GET", api("/claims"), "", nil), 401, nil)
	f.h.expect(f.h.call("GET", api("/replicas"), "", nil), 401, nil)
}

// TestReplicasRoutesNeedACluster: without a cluster view the routes do not exist.
func TestReplicasRoutesNeedACluster(t *testing.T) {
	f := newFixture(t)
	f.h.expect(f.h.call("GET", api("/replicas"), f.tok, nil), 404, nil)
	f.h.expect(f.h.call("GET", api("/claims"), f.tok, nil), 404, nil)
}

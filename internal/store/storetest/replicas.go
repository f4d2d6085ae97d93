package storetest

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var replicaCases = []testCase{
	{"Replicas/Heartbeats", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		started := time.Date(2026, 11, 24, 20, 0, 0, 123456000, time.UTC)
		a := ok(s.Heartbeat(ctx, garrison.Replica{ID: "host-1-aa", Address: "10.0.0.1:9997", Version: "v1", StartedAt: started})).get(t)
		checkStamps(t, a.HeartbeatAt, a.HeartbeatAt)
		ok(s.Heartbeat(ctx, garrison.Replica{ID: "host-2-bb", Address: "10.0.0.2:9997", Version: "v1"})).get(t)
		time.Sleep(5 * time.Millisecond)
		a2 := ok(s.Heartbeat(ctx, garrison.Replica{ID: "host-1-aa", Address: "10.0.0.1:9997", Version: "v2", StartedAt: started})).get(t)
		if !a2.HeartbeatAt.After(a.HeartbeatAt) {
			t.Fatalf("heartbeat did not advance: %v then %v", a.HeartbeatAt, a2.HeartbeatAt)
		}
		list := ok(s.ListReplicas(ctx)).get(t)
		if len(list) != 2 || list[0].ID != "host-1-aa" || list[1].ID != "host-2-bb" {
			t.Fatalf("replicas %+v", list)
		}
		got := list[0]
		if got.Version != "v2" || got.Address != "10.0.0.1:9997" || !got.StartedAt.Equal(started) || !got.HeartbeatAt.Equal(a2.HeartbeatAt) {
			t.Fatalf("replica a %+v, want version v2, started %v, heartbeat %v", got, started, a2.HeartbeatAt)
		}
		must(t, s.RemoveReplica(ctx, "host-2-bb"))
		must(t, s.RemoveReplica(ctx, "host-2-bb")) // missing: no error
		wantEqual(t, "pruned before a's heartbeat", ok(s.PruneReplicas(ctx, a2.HeartbeatAt)).get(t), 0)
		wantEqual(t, "pruned after it", ok(s.PruneReplicas(ctx, a2.HeartbeatAt.Add(time.Second))).get(t), 1)
		wantEqual(t, "replicas left", len(ok(s.ListReplicas(ctx)).get(t)), 0)
		_, err := s.Heartbeat(ctx, garrison.Replica{ID: " "})
		wantErr(t, err, garrison.ErrInvalid)
	}},
	{"Replicas/Claims", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-never-claimed"))).get(t)
		wantEqual(t, "claims at first", len(ok(s.ListClaims(ctx)).get(t)), 0)
		lease(t, s, store.PoolClaim(f.pool.ID), "r1", time.Hour)
		lease(t, s, store.SweepClaim(f.entity.ID), "r2", time.Hour)
		must(t, s.ReleaseLease(ctx, store.SweepClaim(f.entity.ID), "r2"))
		if _, got, err := s.ClaimScaleSetSession(ctx, ss.ID, "garm-x-r2", time.Hour); err != nil || !got {
			t.Fatalf("claim session: %v %v", got, err)
		}
		claims := ok(s.ListClaims(ctx)).get(t)
		type view struct {
			kind, key, holder string
			token             int64
			held              bool
		}
		var got []view
		for _, c := range claims {
			got = append(got, view{c.Kind, c.Key, c.Holder, c.Token, c.HeldAt(time.Now())})
		}
		want := []view{
			{store.ClaimPool, f.pool.ID, "r1", 1, true},
			{store.ClaimScaleSet, strconv.FormatUint(uint64(ss.ID), 10), "garm-x-r2", 1, true},
			{store.ClaimSweep, f.entity.ID, "", 1, false},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("claims\n got %+v\nwant %+v", got, want)
		}
	}},
}

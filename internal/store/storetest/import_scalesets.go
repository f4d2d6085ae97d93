package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// impScaleSet is the id the snapshot's scale set keeps.
const impScaleSet = 7

// withScaleSet adds to the import snapshot a scale set known to GitHub as 12, whose
// listener had processed message 4711, and one of its runners.
func withScaleSet(snap store.Snapshot) store.Snapshot {
	ss := newScaleSet(impRepo, "ubuntu-ss", "x64", "linux")
	ss.ID, ss.ScaleSetID, ss.LastMessageID, ss.DesiredRunnerCount = impScaleSet, 12, 4711, 3
	ss.State, ss.Generation, ss.RunnerPrefix, ss.Enabled = garrison.ScaleSetCreated, 2, "ss", true
	ss.Session = garrison.ScaleSetSession{Owner: "garm-dead", SessionID: "s-1", ExpiresAt: time.Now().Add(time.Hour)}
	snap.ScaleSets = append(snap.ScaleSets, ss)
	in := newScaleSetInstance("ss-0rq5n4hdw2kx", impScaleSet)
	in.ID, in.AgentID, in.Status, in.RunnerStatus = "5c0d6a3e-4f0b-4a43-9b1e-6e1f3b7d2a90", 31, garrison.InstanceRunning, garrison.RunnerIdle
	in.JITConfig = map[string]string{".runner": "eyJzcyI6MX0="}
	snap.Instances = append(snap.Instances, in)
	return snap
}

var importScaleSetCases = []testCase{
	{"Import/ScaleSets", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		must(t, s.Import(ctx, withScaleSet(importSnapshot())))
		ss := ok(s.ScaleSet(ctx, impScaleSet)).get(t)
		wantEqual(t, "forge id", ss.ScaleSetID, 12)
		wantEqual(t, "last message", ss.LastMessageID, int64(4711))
		wantEqual(t, "desired", ss.DesiredRunnerCount, 3)
		wantEqual(t, "generation", ss.Generation, uint64(2))
		wantEqual(t, "state", ss.State, garrison.ScaleSetCreated)
		wantEqual(t, "entity type", ss.EntityType, garrison.Repository)
		wantEqual(t, "session claim", ss.Session, garrison.ScaleSetSession{})
		want := []garrison.Tag{{ID: impTagX64, Name: "x64"}, {ID: impTagLinux, Name: "linux"}}
		if !slices.Equal(ss.Tags, want) {
			t.Fatalf("tags %+v, want %+v (existing tags reused, order kept)", ss.Tags, want)
		}
		runners := ok(s.ListInstances(ctx, store.InstanceFilter{ScaleSetID: impScaleSet})).get(t)
		if len(runners) != 1 || runners[0].Name != "ss-0rq5n4hdw2kx" {
			t.Fatalf("scale set runners %+v", runners)
		}
		r := ok(s.Instance(ctx, "ss-0rq5n4hdw2kx")).get(t) // with its JIT configuration
		if r.AgentID != 31 || r.ScaleSetID != impScaleSet || r.PoolID != "" || r.JITConfig[".runner"] != "eyJzcyI6MX0=" {
			t.Fatalf("scale set runner %+v", r)
		}
		next := ok(s.CreateScaleSet(ctx, newScaleSet(impRepo, "after"))).get(t)
		if next.ID <= impScaleSet {
			t.Fatalf("a scale set created after the import got id %d, not above the imported %d", next.ID, impScaleSet)
		}
	}},
	{"Import/ScaleSetConflicts", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		for _, tc := range []struct {
			name string
			edit func(*store.Snapshot)
			want error
		}{
			{"no id", func(sn *store.Snapshot) { sn.ScaleSets[0].ID = 0 }, garrison.ErrInvalid},
			{"invalid", func(sn *store.Snapshot) { sn.ScaleSets[0].MinIdleRunners = 9 }, garrison.ErrInvalid},
			{"missing entity", func(sn *store.Snapshot) { sn.ScaleSets[0].EntityID = impPool }, garrison.ErrNotFound},
			{"missing template", func(sn *store.Snapshot) { sn.ScaleSets[0].TemplateID = 999 }, garrison.ErrNotFound},
			{"duplicate name", func(sn *store.Snapshot) {
				dup := sn.ScaleSets[0]
				dup.ID, dup.Name = 8, "UBUNTU-SS"
				sn.ScaleSets = append(sn.ScaleSets, dup)
			}, garrison.ErrConflict},
		} {
			t.Run(tc.name, func(t *testing.T) {
				snap := withScaleSet(importSnapshot())
				tc.edit(&snap)
				wantErr(t, s.Import(ctx, snap), tc.want)
				wantEqual(t, "scale sets after", len(ok(s.ListScaleSets(ctx, store.ScaleSetFilter{})).get(t)), 0)
			})
		}
	}},
}

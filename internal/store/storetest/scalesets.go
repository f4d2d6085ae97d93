package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

func newScaleSet(entityID, name string, labels ...string) garrison.ScaleSet {
	return garrison.ScaleSet{
		EntityID: entityID, Name: name, ProviderName: "lxd", RunnerPrefix: "garm", MaxRunners: 5,
		MinIdleRunners: 1, Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux,
		OSArch: garrison.ArchAMD64, Tags: garrison.TagsFromNames(labels), RunnerGroup: "Default",
		ExtraSpecs: []byte(`{"a":1}`),
	}
}

func newScaleSetInstance(name string, scaleSetID uint) garrison.Instance {
	in := newInstance(name, "")
	in.ScaleSetID = scaleSetID
	return in
}

var scaleSetCases = []testCase{
	{"ScaleSets/CreateReadList", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		a := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a", "gpu", "GPU", "big"))).get(t)
		if a.ID == 0 || a.State != garrison.ScaleSetPendingCreate || a.EntityType != garrison.Repository {
			t.Fatalf("created %+v", a)
		}
		checkStamps(t, a.CreatedAt, a.UpdatedAt)
		b := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-b"))).get(t)
		if b.ID <= a.ID {
			t.Fatalf("ids %d then %d", a.ID, b.ID)
		}
		got := ok(s.ScaleSet(ctx, a.ID)).get(t)
		if len(got.Tags) != 2 || got.Tags[0].Name != "gpu" || got.Tags[1].Name != "big" || got.Tags[0].ID == "" {
			t.Fatalf("tags %+v", got.Tags)
		}
		if string(got.ExtraSpecs) != `{"a":1}` || got.RunnerGroup != "Default" || got.MaxRunners != 5 {
			t.Fatalf("read back %+v", got)
		}
		all := ok(s.ListScaleSets(ctx, store.ScaleSetFilter{})).get(t)
		if len(all) != 2 || all[0].ID != a.ID || len(all[0].Tags) != 2 || len(all[1].Tags) != 0 || all[1].Tags == nil {
			t.Fatalf("list %+v", all)
		}
		other := ok(s.CreateEntity(ctx, newRepo("acme", "other", f.creds.ID))).get(t)
		if n := len(ok(s.ListScaleSets(ctx, store.ScaleSetFilter{EntityID: other.ID})).get(t)); n != 0 {
			t.Fatalf("other entity lists %d scale sets", n)
		}
	}},
	{"ScaleSets/CreateRefused", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		bad := func(edit func(*garrison.ScaleSet)) garrison.ScaleSet {
			ss := newScaleSet(f.entity.ID, "set-x")
			edit(&ss)
			return ss
		}
		for _, tc := range []struct {
			name string
			ss   garrison.ScaleSet
			want error
		}{
			{"duplicate name, other case", bad(func(ss *garrison.ScaleSet) { ss.Name = "SET-A" }), garrison.ErrConflict},
			{"unknown entity", bad(func(ss *garrison.ScaleSet) { ss.EntityID = "nope" }), garrison.ErrNotFound},
			{"no name", bad(func(ss *garrison.ScaleSet) { ss.Name = "" }), garrison.ErrInvalid},
			{"min above max", bad(func(ss *garrison.ScaleSet) { ss.MinIdleRunners = 9 }), garrison.ErrInvalid},
			{"bad os", bad(func(ss *garrison.ScaleSet) { ss.OSType = "plan9" }), garrison.ErrInvalid},
			{"bad extra specs", bad(func(ss *garrison.ScaleSet) { ss.ExtraSpecs = []byte("{") }), garrison.ErrInvalid},
		} {
			_, err := s.CreateScaleSet(ctx, tc.ss)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
			}
		}
		// The same name in another runner group is another scale set.
		ss := newScaleSet(f.entity.ID, "set-a")
		ss.RunnerGroup = "other"
		ok(s.CreateScaleSet(ctx, ss)).get(t)
		if n := len(ok(s.ListScaleSets(ctx, store.ScaleSetFilter{})).get(t)); n != 2 {
			t.Fatalf("%d scale sets after refusals, want 2", n)
		}
	}},
	{"ScaleSets/UpdateBumpsGenerationKeepsListenerState", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a", "gpu"))).get(t)
		_, claimed, err := s.ClaimScaleSetSession(ctx, ss.ID, "r1", time.Hour)
		must(t, err)
		if !claimed {
			t.Fatal("free claim refused")
		}
		must(t, s.RecordScaleSetMessage(ctx, ss.ID, "r1", 7, 3))
		up := ok(s.UpdateScaleSet(ctx, ss.ID, func(x *garrison.ScaleSet) error {
			x.MaxRunners = 9
			x.LastMessageID, x.Session.Owner, x.Tags, x.EntityID = 99, "thief", nil, "other"
			return nil
		})).get(t)
		if up.Generation != ss.Generation || up.MaxRunners != 9 {
			t.Fatalf("capacity change: %+v", up)
		}
		if up.LastMessageID != 7 || up.Session.Owner != "r1" || len(up.Tags) != 1 || up.EntityID != f.entity.ID {
			t.Fatalf("update changed listener state or fixed fields: %+v", up)
		}
		up = ok(s.UpdateScaleSet(ctx, ss.ID, func(x *garrison.ScaleSet) error { x.Image = "ubuntu:26.04"; return nil })).get(t)
		if up.Generation != ss.Generation+1 {
			t.Fatalf("image change: generation %d, want %d", up.Generation, ss.Generation+1)
		}
		// A new forge id (the scale set recreated on the service): its queue starts afresh.
		up = ok(s.UpdateScaleSet(ctx, ss.ID, func(x *garrison.ScaleSet) error { x.ScaleSetID++; return nil })).get(t)
		if up.LastMessageID != 0 || ok(s.ScaleSet(ctx, ss.ID)).get(t).LastMessageID != 0 {
			t.Fatalf("new forge id kept last message id %d", up.LastMessageID)
		}
		_, err = s.UpdateScaleSet(ctx, ss.ID, func(x *garrison.ScaleSet) error { x.MinIdleRunners = 99; return nil })
		wantErr(t, err, garrison.ErrInvalid)
		_, err = s.UpdateScaleSet(ctx, 4242, func(*garrison.ScaleSet) error { return nil })
		wantErr(t, err, garrison.ErrNotFound)
		sentinel := errors.New("abort")
		if _, err = s.UpdateScaleSet(ctx, ss.ID, func(*garrison.ScaleSet) error { return sentinel }); !errors.Is(err, sentinel) {
			t.Fatalf("callback error: %v", err)
		}
	}},
	{"ScaleSets/DeleteRules", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		in := ok(s.CreateInstance(ctx, newScaleSetInstance("garm-ss1", ss.ID))).get(t)
		wantErr(t, s.DeleteScaleSet(ctx, ss.ID), garrison.ErrInvalid)
		wantErr(t, s.DeleteEntity(ctx, f.entity.ID), garrison.ErrInvalid)
		must(t, s.DeleteInstance(ctx, in.Name))
		must(t, s.DeletePool(ctx, f.pool.ID))
		wantErr(t, s.DeleteEntity(ctx, f.entity.ID), garrison.ErrInvalid) // the scale set remains
		must(t, s.DeleteScaleSet(ctx, ss.ID))
		must(t, s.DeleteScaleSet(ctx, ss.ID)) // missing: nil
		_, err := s.ScaleSet(ctx, ss.ID)
		wantErr(t, err, garrison.ErrNotFound)
		must(t, s.DeleteEntity(ctx, f.entity.ID))
	}},
	{"ScaleSets/Instances", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		ok(s.CreateInstance(ctx, newInstance("garm-pool1", f.pool.ID))).get(t)
		in := newScaleSetInstance("garm-ss1", ss.ID)
		in.JITConfig = map[string]string{".runner": "e30="}
		ok(s.CreateInstance(ctx, in)).get(t)
		got := ok(s.Instance(ctx, "garm-ss1")).get(t)
		if got.ScaleSetID != ss.ID || got.PoolID != "" || got.JITConfig[".runner"] != "e30=" {
			t.Fatalf("read back %+v", got)
		}
		up := ok(s.UpdateInstance(ctx, "garm-ss1", func(i *garrison.Instance) error {
			i.ScaleSetID, i.PoolID, i.Status = 0, f.pool.ID, garrison.InstanceCreating
			return nil
		})).get(t)
		if up.ScaleSetID != ss.ID || up.PoolID != "" || up.Status != garrison.InstanceCreating {
			t.Fatalf("update moved the owner: %+v", up)
		}
		for _, tc := range []struct {
			f    store.InstanceFilter
			want []string
		}{
			{store.InstanceFilter{}, []string{"garm-pool1", "garm-ss1"}},
			{store.InstanceFilter{ScaleSetID: ss.ID}, []string{"garm-ss1"}},
			{store.InstanceFilter{PoolID: f.pool.ID}, []string{"garm-pool1"}},
			{store.InstanceFilter{EntityID: f.entity.ID}, []string{"garm-pool1"}}, // pools only, as GARM
			{store.InstanceFilter{ScaleSetID: ss.ID + 100}, nil},
		} {
			list := ok(s.ListInstances(ctx, tc.f)).get(t)
			var names []string
			for _, i := range list {
				names = append(names, i.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tc.want) {
				t.Errorf("filter %+v: %v, want %v", tc.f, names, tc.want)
			}
		}
		_, err := s.CreateInstance(ctx, newScaleSetInstance("garm-ss2", ss.ID+100))
		wantErr(t, err, garrison.ErrNotFound)
		both := newScaleSetInstance("garm-ss3", ss.ID)
		both.PoolID = f.pool.ID
		_, err = s.CreateInstance(ctx, both)
		wantErr(t, err, garrison.ErrInvalid)
		_, err = s.CreateInstance(ctx, newInstance("garm-none", ""))
		wantErr(t, err, garrison.ErrInvalid)
	}},
	{"ScaleSets/SessionClaim", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		claim := func(owner string, ttl time.Duration) (garrison.ScaleSetSession, bool) {
			t.Helper()
			prev, got, err := s.ClaimScaleSetSession(ctx, ss.ID, owner, ttl)
			must(t, err)
			return prev, got
		}
		if _, got := claim("a", time.Hour); !got {
			t.Fatal("free claim refused")
		}
		if _, got := claim("a", time.Hour); !got {
			t.Fatal("renewal refused")
		}
		if prev, got := claim("b", time.Hour); got || prev.Owner != "a" {
			t.Fatalf("b got a's live claim (%v), saw %+v", got, prev)
		}
		must(t, s.SetScaleSetSessionID(ctx, ss.ID, "a", "sess-1"))
		wantErr(t, s.SetScaleSetSessionID(ctx, ss.ID, "b", "sess-2"), garrison.ErrConflict)
		wantErr(t, s.RecordScaleSetMessage(ctx, ss.ID, "b", 5, 1), garrison.ErrConflict)
		must(t, s.ReleaseScaleSetSession(ctx, ss.ID, "b")) // not b's: no effect
		if _, got := claim("b", time.Hour); got {
			t.Fatal("a release by a non-holder freed the claim")
		}
		// a dies: its claim lapses and b takes over, learning a's forge session.
		claim("a", time.Millisecond)
		time.Sleep(20 * time.Millisecond)
		prev, got := claim("b", time.Hour)
		if !got || prev.Owner != "a" || prev.SessionID != "sess-1" {
			t.Fatalf("takeover: got %v, previous %+v", got, prev)
		}
		wantErr(t, s.RecordScaleSetMessage(ctx, ss.ID, "a", 5, 1), garrison.ErrConflict)
		must(t, s.ReleaseScaleSetSession(ctx, ss.ID, "b"))
		if _, got := claim("c", time.Hour); !got {
			t.Fatal("released claim not free")
		}
		_, _, err := s.ClaimScaleSetSession(ctx, 4242, "a", time.Hour)
		wantErr(t, err, garrison.ErrNotFound)
		_, _, err = s.ClaimScaleSetSession(ctx, ss.ID, " ", time.Hour)
		wantErr(t, err, garrison.ErrInvalid)
	}},
	{"ScaleSets/MessageIDNeverGoesBack", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		if _, got, err := s.ClaimScaleSetSession(ctx, ss.ID, "a", time.Hour); err != nil || !got {
			t.Fatalf("claim: %v %v", got, err)
		}
		for _, st := range []struct {
			id      int64
			desired int
			wantID  int64
		}{{10, 4, 10}, {12, 2, 12}, {11, 3, 12}, {0, 0, 12}} {
			must(t, s.RecordScaleSetMessage(ctx, ss.ID, "a", st.id, st.desired))
			got := ok(s.ScaleSet(ctx, ss.ID)).get(t)
			if got.LastMessageID != st.wantID || got.DesiredRunnerCount != st.desired {
				t.Fatalf("after message %d: last %d desired %d, want %d %d", st.id, got.LastMessageID,
					got.DesiredRunnerCount, st.wantID, st.desired)
			}
		}
	}},
	{"ScaleSets/OneClaimUnderContention", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			wins []string
		)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				owner := fmt.Sprintf("replica-%d", i)
				_, got, err := s.ClaimScaleSetSession(ctx, ss.ID, owner, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if got {
					mu.Lock()
					wins = append(wins, owner)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(wins) != 1 {
			t.Fatalf("winners %v, want exactly one", wins)
		}
		if got := ok(s.ScaleSet(ctx, ss.ID)).get(t); got.Session.Owner != wins[0] {
			t.Fatalf("stored owner %q, winner %q", got.Session.Owner, wins[0])
		}
	}},
}

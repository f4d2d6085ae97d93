package storetest

import (
	"slices"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var poolCases = []testCase{
	{"Pools/CreateGet", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		checkStamps(t, f.pool.CreatedAt, f.pool.UpdatedAt)
		got := ok(s.Pool(ctx, f.pool.ID)).get(t)
		wantEqual(t, "entity", got.EntityID, f.entity.ID)
		wantEqual(t, "entity type", got.EntityType, garrison.Repository)
		wantEqual(t, "image", got.Image, "ubuntu:24.04")
		wantEqual(t, "max", got.MaxRunners, uint(5))
		wantEqual(t, "enabled", got.Enabled, true)
		wantEqual(t, "extra specs", string(got.ExtraSpecs), `{"a":1}`)
		wantEqual(t, "created at", got.CreatedAt, f.pool.CreatedAt)
		if !slices.Equal(got.TagNames(), []string{"linux", "x64"}) {
			t.Fatalf("tags %v, want [linux x64] in creation order", got.TagNames())
		}
		for _, tag := range got.Tags {
			if tag.ID == "" {
				t.Fatalf("tag %s without id", tag.Name)
			}
		}
		if !slices.Equal(got.Tags, f.pool.Tags) {
			t.Fatalf("read tags %v, create returned %v", got.Tags, f.pool.Tags)
		}
		bare := newPool(f.entity.ID, "t")
		bare.ExtraSpecs = nil
		p := ok(s.CreatePool(ctx, bare)).get(t)
		if ok(s.Pool(ctx, p.ID)).get(t).ExtraSpecs != nil {
			t.Fatal("unset extra specs read back as non-nil")
		}
	}},
	{"Pools/TagsAreGlobal", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		p2 := ok(s.CreatePool(ctx, newPool(f.entity.ID, "X64", "gpu", " gpu ", "GPU"))).get(t)
		if !slices.Equal(p2.TagNames(), []string{"x64", "gpu"}) {
			t.Fatalf("tags %v, want [x64 gpu]: deduplicated, first spelling kept", p2.TagNames())
		}
		wantEqual(t, "shared tag id", p2.Tags[0].ID, f.pool.Tags[1].ID)
		if p2.Tags[1].ID == f.pool.Tags[0].ID || p2.Tags[1].ID == f.pool.Tags[1].ID {
			t.Fatal("new tag reused an id")
		}
	}},
	{"Pools/Errors", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		noTags := newPool(f.entity.ID)
		for _, tc := range []struct {
			name string
			err  error
			want error
		}{
			{"missing entity", second(s.CreatePool(ctx, newPool("missing", "a"))), garrison.ErrNotFound},
			{"invalid", second(s.CreatePool(ctx, noTags)), garrison.ErrInvalid},
			{"get missing", second(s.Pool(ctx, "missing")), garrison.ErrNotFound},
			{"update missing", second(s.UpdatePool(ctx, "missing", func(*garrison.Pool) error { return nil })), garrison.ErrNotFound},
			{"delete missing", s.DeletePool(ctx, "missing"), garrison.ErrNotFound},
		} {
			t.Run(tc.name, func(t *testing.T) { wantErr(t, tc.err, tc.want) })
		}
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		err := s.DeletePool(ctx, f.pool.ID)
		wantErr(t, err, garrison.ErrInvalid)
		wantEqual(t, "message", garrison.MessageOf(err), "pool has runners")
		must(t, s.DeleteInstance(ctx, "runner-1"))
		// A retired runner kept as history (status deleted) goes with its pool.
		hist := newInstance("retired-1", f.pool.ID)
		hist.Status = garrison.InstanceDeleted
		ok(s.CreateInstance(ctx, hist)).get(t)
		must(t, s.AddInstanceEvent(ctx, "retired-1", garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelError, Message: "retired"}))
		must(t, s.DeletePool(ctx, f.pool.ID))
		_, err = s.Pool(ctx, f.pool.ID)
		wantErr(t, err, garrison.ErrNotFound)
		_, err = s.Instance(ctx, "retired-1")
		wantErr(t, err, garrison.ErrNotFound)
	}},
	{"Pools/List", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		org := ok(s.CreateEntity(ctx, garrison.Entity{Type: garrison.Organization, Name: "acme", CredentialsID: f.creds.ID})).get(t)
		ok(s.CreatePool(ctx, newPool(org.ID, "org", "linux"))).get(t)
		ok(s.CreatePool(ctx, newPool(org.ID, "org2"))).get(t)
		empty := ok(s.CreateEntity(ctx, garrison.Entity{Type: garrison.Organization, Name: "empty", CredentialsID: f.creds.ID})).get(t)
		for _, tc := range []struct {
			name string
			f    store.PoolFilter
			want int
		}{{"all", store.PoolFilter{}, 3}, {"repo", store.PoolFilter{EntityID: f.entity.ID}, 1},
			{"org", store.PoolFilter{EntityID: org.ID}, 2}, {"none", store.PoolFilter{EntityID: empty.ID}, 0}} {
			t.Run(tc.name, func(t *testing.T) {
				list := ok(s.ListPools(ctx, tc.f)).get(t)
				if list == nil {
					t.Fatal("nil slice")
				}
				wantEqual(t, "count", len(list), tc.want)
				for _, p := range list {
					if len(p.Tags) == 0 {
						t.Fatalf("pool %s listed without tags", p.ID)
					}
				}
			})
		}
	}},
	{"Pools/Update", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		_, err := s.UpdatePool(ctx, f.pool.ID, func(p *garrison.Pool) error {
			p.MaxRunners = 99
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		_, err = s.UpdatePool(ctx, f.pool.ID, func(p *garrison.Pool) error {
			p.MinIdleRunners = 10
			return nil
		})
		wantErr(t, err, garrison.ErrInvalid)
		got := ok(s.UpdatePool(ctx, f.pool.ID, func(p *garrison.Pool) error {
			p.MaxRunners = 10
			p.Tags = garrison.TagsFromNames([]string{"arm64", "LINUX"})
			return nil
		})).get(t)
		wantEqual(t, "generation unchanged", got.Generation, f.pool.Generation)
		again := ok(s.Pool(ctx, f.pool.ID)).get(t)
		wantEqual(t, "max", again.MaxRunners, uint(10))
		if !slices.Equal(again.TagNames(), []string{"arm64", "linux"}) {
			t.Fatalf("tags %v, want [arm64 linux]", again.TagNames())
		}
		wantEqual(t, "linux tag id", again.Tags[1].ID, f.pool.Tags[0].ID)
		got = ok(s.UpdatePool(ctx, f.pool.ID, func(p *garrison.Pool) error {
			p.Image = "ubuntu:26.04"
			return nil
		})).get(t)
		wantEqual(t, "generation bumped", got.Generation, f.pool.Generation+1)
		wantEqual(t, "stored generation", ok(s.Pool(ctx, f.pool.ID)).get(t).Generation, f.pool.Generation+1)
	}},
}

package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var instanceCases = []testCase{
	{"Instances/CreateGet", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		in := newInstance("runner-1", f.pool.ID)
		in.Addresses = []garrison.Address{{Address: "10.0.0.1", Type: "private"}}
		in.JITConfig = map[string]string{".runner": "e30="}
		in.ProviderFault = []byte("boom")
		in.Heartbeat = time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.FixedZone("x", 3600))
		in.StatusMessages = []garrison.Event{{Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "requested"}}
		i := ok(s.CreateInstance(ctx, in)).get(t)
		checkStamps(t, i.CreatedAt, i.UpdatedAt)
		for _, got := range []garrison.Instance{ok(s.Instance(ctx, "runner-1")).get(t), ok(s.InstanceByID(ctx, i.ID)).get(t)} {
			wantEqual(t, "id", got.ID, i.ID)
			wantEqual(t, "pool", got.PoolID, f.pool.ID)
			wantEqual(t, "status", got.Status, garrison.InstancePendingCreate)
			wantEqual(t, "address", got.Addresses[0], in.Addresses[0])
			wantEqual(t, "jit", got.JITConfig[".runner"], "e30=")
			wantEqual(t, "fault", string(got.ProviderFault), "boom")
			wantEqual(t, "heartbeat", got.Heartbeat, in.Heartbeat.UTC())
			wantEqual(t, "created at", got.CreatedAt, i.CreatedAt)
			if len(got.StatusMessages) != 1 || got.StatusMessages[0].Message != "requested" {
				t.Fatalf("status messages %+v, want the one given at create", got.StatusMessages)
			}
		}
	}},
	{"Instances/Errors", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		withProvider := newInstance("runner-1", f.pool.ID)
		withProvider.ProviderID = "prov-1"
		ok(s.CreateInstance(ctx, withProvider)).get(t)
		dupProvider := newInstance("runner-2", f.pool.ID)
		dupProvider.ProviderID = "prov-1"
		for _, tc := range []struct {
			name string
			err  error
			want error
		}{
			{"duplicate name", second(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))), garrison.ErrConflict},
			{"duplicate provider id", second(s.CreateInstance(ctx, dupProvider)), garrison.ErrConflict},
			{"empty provider ids", second(s.CreateInstance(ctx, newInstance("runner-3", f.pool.ID))), nil},
			{"more empty provider ids", second(s.CreateInstance(ctx, newInstance("runner-4", f.pool.ID))), nil},
			{"missing pool", second(s.CreateInstance(ctx, newInstance("runner-5", "missing"))), garrison.ErrNotFound},
			{"get missing", second(s.Instance(ctx, "missing")), garrison.ErrNotFound},
			{"get missing id", second(s.InstanceByID(ctx, "missing")), garrison.ErrNotFound},
			{"update missing", second(s.UpdateInstance(ctx, "missing", func(*garrison.Instance) error { return nil })), garrison.ErrNotFound},
			{"delete missing", s.DeleteInstance(ctx, "missing"), nil},
			{"event for missing", s.AddInstanceEvent(ctx, "missing", garrison.Event{}), garrison.ErrNotFound},
			{"provider id update duplicate", second(s.UpdateInstance(ctx, "runner-3", func(i *garrison.Instance) error {
				i.ProviderID = "prov-1"
				return nil
			})), garrison.ErrConflict},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.want == nil {
					must(t, tc.err)
					return
				}
				wantErr(t, tc.err, tc.want)
			})
		}
	}},
	{"Instances/List", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		p2 := ok(s.CreatePool(ctx, newPool(f.entity.ID, "b"))).get(t)
		org := ok(s.CreateEntity(ctx, garrison.Entity{Type: garrison.Organization, Name: "acme", CredentialsID: f.creds.ID})).get(t)
		p3 := ok(s.CreatePool(ctx, newPool(org.ID, "c"))).get(t)
		for i, p := range []string{f.pool.ID, f.pool.ID, p2.ID, p3.ID} {
			ok(s.CreateInstance(ctx, newInstance(fmt.Sprint("runner-", i), p))).get(t)
		}
		must(t, s.AddInstanceEvent(ctx, "runner-0", garrison.Event{Message: "m"}))
		for _, tc := range []struct {
			name string
			f    store.InstanceFilter
			want int
		}{
			{"all", store.InstanceFilter{}, 4}, {"pool", store.InstanceFilter{PoolID: f.pool.ID}, 2},
			{"entity", store.InstanceFilter{EntityID: f.entity.ID}, 3}, {"org", store.InstanceFilter{EntityID: org.ID}, 1},
			{"pool and entity", store.InstanceFilter{PoolID: p3.ID, EntityID: f.entity.ID}, 0},
			{"none", store.InstanceFilter{PoolID: "missing"}, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				list := ok(s.ListInstances(ctx, tc.f)).get(t)
				if list == nil {
					t.Fatal("nil slice")
				}
				wantEqual(t, "count", len(list), tc.want)
				for _, i := range list {
					if len(i.StatusMessages) != 0 {
						t.Fatal("list returned status messages")
					}
				}
			})
		}
	}},
	{"Instances/ListLeavesJITConfigNil", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		in := newInstance("runner-1", f.pool.ID)
		in.JITConfig = map[string]string{".runner": "e30=", ".credentials": "e30="}
		i := ok(s.CreateInstance(ctx, in)).get(t)
		ok(s.CreateInstance(ctx, newInstance("runner-2", f.pool.ID))).get(t)
		for _, fl := range []store.InstanceFilter{{}, {PoolID: f.pool.ID}, {EntityID: f.entity.ID}} {
			list := ok(s.ListInstances(ctx, fl)).get(t)
			wantEqual(t, "count", len(list), 2)
			for _, l := range list {
				if l.JITConfig != nil {
					t.Fatalf("list (filter %+v) returned the JIT config of %s", fl, l.Name)
				}
			}
		}
		for _, got := range []garrison.Instance{ok(s.Instance(ctx, "runner-1")).get(t), ok(s.InstanceByID(ctx, i.ID)).get(t)} {
			wantEqual(t, "jit files", len(got.JITConfig), 2)
		}
		var seen int
		got := ok(s.UpdateInstance(ctx, "runner-1", func(i *garrison.Instance) error {
			seen = len(i.JITConfig)
			i.Status = garrison.InstanceRunning
			return nil
		})).get(t)
		wantEqual(t, "jit files seen by the update", seen, 2)
		wantEqual(t, "jit files returned by the update", len(got.JITConfig), 2)
		wantEqual(t, "jit kept by the update", ok(s.Instance(ctx, "runner-1")).get(t).JITConfig[".credentials"], "e30=")
	}},
	{"Instances/Update", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		i := ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		_, err := s.UpdateInstance(ctx, i.Name, func(i *garrison.Instance) error {
			i.Status = garrison.InstanceRunning
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		wantEqual(t, "status", ok(s.Instance(ctx, i.Name)).get(t).Status, garrison.InstancePendingCreate)
		hb := time.Now()
		got := ok(s.UpdateInstance(ctx, i.Name, func(i *garrison.Instance) error {
			i.Status, i.RunnerStatus, i.ProviderID, i.AgentID = garrison.InstanceRunning, garrison.RunnerIdle, "p-1", 42
			i.Heartbeat, i.TokenFetched, i.JobID, i.Generation = hb, true, 7, 3
			i.Name, i.ID = "renamed", "other"
			return nil
		})).get(t)
		wantEqual(t, "name", got.Name, "runner-1")
		again := ok(s.Instance(ctx, "runner-1")).get(t)
		wantEqual(t, "id", again.ID, i.ID)
		wantEqual(t, "status", again.Status, garrison.InstanceRunning)
		wantEqual(t, "runner status", again.RunnerStatus, garrison.RunnerIdle)
		wantEqual(t, "provider id", again.ProviderID, "p-1")
		wantEqual(t, "agent id", again.AgentID, int64(42))
		wantEqual(t, "token fetched", again.TokenFetched, true)
		wantEqual(t, "job", again.JobID, int64(7))
		wantEqual(t, "generation", again.Generation, uint64(3))
		if d := again.Heartbeat.Sub(hb); d < -time.Millisecond || d > time.Millisecond {
			t.Fatalf("heartbeat %v, want %v to the millisecond", again.Heartbeat, hb)
		}
		if !again.UpdatedAt.After(i.UpdatedAt) && !again.UpdatedAt.Equal(i.UpdatedAt) {
			t.Fatal("updated_at went backwards")
		}
	}},
	{"Instances/ConcurrentUpdatesAreNotLost", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		const workers, each = 8, 10
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range each {
					_, err := s.UpdateInstance(ctx, "runner-1", func(i *garrison.Instance) error {
						i.CreateAttempt++
						return nil
					})
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		wantEqual(t, "create attempts", ok(s.Instance(ctx, "runner-1")).get(t).CreateAttempt, workers*each)
	}},
	{"Instances/StatusMessagesTrimmed", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		ok(s.CreateInstance(ctx, newInstance("runner-2", f.pool.ID))).get(t)
		must(t, s.AddInstanceEvent(ctx, "runner-2", garrison.Event{Message: "other"}))
		const n = garrison.MaxStatusMessages + 7
		for k := range n {
			must(t, s.AddInstanceEvent(ctx, "runner-1", garrison.Event{
				Type: garrison.EventStatus, Level: garrison.LevelWarning, Message: fmt.Sprint("msg ", k),
			}))
		}
		msgs := ok(s.Instance(ctx, "runner-1")).get(t).StatusMessages
		wantEqual(t, "kept", len(msgs), garrison.MaxStatusMessages)
		want := make([]string, 0, garrison.MaxStatusMessages)
		for k := n - garrison.MaxStatusMessages; k < n; k++ {
			want = append(want, fmt.Sprint("msg ", k))
		}
		got := make([]string, len(msgs))
		for k, m := range msgs {
			got[k] = m.Message
		}
		if !slices.Equal(got, want) {
			t.Fatalf("messages %v, want %v (newest last)", got, want)
		}
		wantEqual(t, "level", msgs[0].Level, garrison.LevelWarning)
		wantEqual(t, "other instance", len(ok(s.Instance(ctx, "runner-2")).get(t).StatusMessages), 1)
		must(t, s.DeleteInstance(ctx, "runner-1"))
		_, err := s.Instance(ctx, "runner-1")
		wantErr(t, err, garrison.ErrNotFound)
	}},
}

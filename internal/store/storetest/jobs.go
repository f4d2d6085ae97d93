package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var jobCases = []testCase{
	{"Jobs/Upsert", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		started := time.Date(2026, 3, 4, 5, 6, 7, 890000000, time.UTC)
		j := ok(s.UpsertJob(ctx, 42, func(j *garrison.Job, exists bool) error {
			if exists || j.ID != 42 {
				t.Errorf("new job: exists=%v id=%d", exists, j.ID)
			}
			j.Action, j.Name, j.Labels, j.EntityID = garrison.JobQueued, "build", []string{"linux", "x64"}, "e1"
			j.EntityType, j.StartedAt = garrison.Repository, started
			return nil
		})).get(t)
		checkStamps(t, j.CreatedAt, j.UpdatedAt)
		ok(s.UpsertJob(ctx, 42, func(j *garrison.Job, exists bool) error {
			if !exists || j.Name != "build" {
				t.Errorf("existing job: exists=%v name=%q", exists, j.Name)
			}
			j.Action, j.LockedBy, j.ID = garrison.JobInProgress, "5f0c1f36-8f5c-4d2b-9a57-2b7a1c3c2f00", 7
			j.Reason = "waiting for pool p1 to have capacity"
			return nil
		})).get(t)
		_, err := s.UpsertJob(ctx, 42, func(j *garrison.Job, _ bool) error {
			j.Action = garrison.JobCompleted
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		got := ok(s.Job(ctx, 42)).get(t)
		wantEqual(t, "action", got.Action, garrison.JobInProgress)
		wantEqual(t, "locked by", got.LockedBy, "5f0c1f36-8f5c-4d2b-9a57-2b7a1c3c2f00")
		wantEqual(t, "reason", got.Reason, "waiting for pool p1 to have capacity")
		wantEqual(t, "started at", got.StartedAt, started)
		wantEqual(t, "completed at", got.CompletedAt.IsZero(), true)
		wantEqual(t, "created at", got.CreatedAt, j.CreatedAt)
		if !slices.Equal(got.Labels, []string{"linux", "x64"}) {
			t.Fatalf("labels %v", got.Labels)
		}
		_, err = s.UpsertJob(ctx, 43, func(*garrison.Job, bool) error { return errCallback })
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		_, err = s.Job(ctx, 43)
		wantErr(t, err, garrison.ErrNotFound)
	}},
	{"Jobs/ConcurrentUpsertCreatesOnce", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created int
		)
		for range 6 {
			wg.Go(func() {
				_, err := s.UpsertJob(ctx, 7, func(j *garrison.Job, exists bool) error {
					if !exists {
						mu.Lock()
						created++
						mu.Unlock()
					}
					j.RunID++
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		wantEqual(t, "run id", ok(s.Job(ctx, 7)).get(t).RunID, int64(6))
		if created < 1 {
			t.Fatal("job never created")
		}
	}},
	{"Jobs/Seq", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		upsert := func(id int64) garrison.Job {
			t.Helper()
			return ok(s.UpsertJob(ctx, id, func(j *garrison.Job, _ bool) error {
				j.Action, j.EntityID, j.Seq = garrison.JobQueued, "e1", 1000 // Seq is the store's
				return nil
			})).get(t)
		}
		for i, id := range []int64{300, 100, 200} {
			wantEqual(t, "seq of new job", upsert(id).Seq, int64(i+1))
		}
		wantEqual(t, "seq of an updated job", upsert(100).Seq, int64(2))
		wantEqual(t, "seq read back", ok(s.Job(ctx, 100)).get(t).Seq, int64(2))
		wantJobs(t, ok(s.ListJobs(ctx, store.JobFilter{})).get(t), []int64{300, 100, 200}, []int64{1, 2, 3})
		wantJobs(t, ok(s.ListJobs(ctx, store.JobFilter{EntityID: "e1", UpdatedSince: time.Unix(1, 0)})).get(t),
			[]int64{300, 100, 200}, []int64{1, 2, 3})
		must(t, s.DeleteJob(ctx, 200))
		wantEqual(t, "seq after the newest job was deleted", upsert(50).Seq, int64(4))
	}},
	{"Jobs/ListDelete", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		if list := ok(s.ListJobs(ctx, store.JobFilter{})).get(t); list == nil || len(list) != 0 {
			t.Fatalf("empty list %#v, want []", list)
		}
		for _, spec := range []struct {
			id     int64
			entity string
			action garrison.JobAction
		}{{1, "e1", garrison.JobQueued}, {2, "e1", garrison.JobCompleted}, {3, "e2", garrison.JobQueued}} {
			ok(s.UpsertJob(ctx, spec.id, func(j *garrison.Job, _ bool) error {
				j.EntityID, j.Action = spec.entity, spec.action
				return nil
			})).get(t)
		}
		for _, tc := range []struct {
			name string
			f    store.JobFilter
			want []int64
		}{
			{"all", store.JobFilter{}, []int64{1, 2, 3}},
			{"entity", store.JobFilter{EntityID: "e1"}, []int64{1, 2}},
			{"action", store.JobFilter{Action: garrison.JobQueued}, []int64{1, 3}},
			{"both", store.JobFilter{EntityID: "e1", Action: garrison.JobQueued}, []int64{1}},
			{"none", store.JobFilter{EntityID: "e3"}, []int64{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				list := ok(s.ListJobs(ctx, tc.f)).get(t)
				ids := make([]int64, len(list))
				for i, j := range list {
					ids[i] = j.ID
					if j.Labels == nil {
						t.Fatal("nil labels")
					}
				}
				if !slices.Equal(ids, tc.want) {
					t.Fatalf("ids %v, want %v", ids, tc.want)
				}
			})
		}
		checkUpdatedSince(ctx, t, s)
		must(t, s.DeleteJob(ctx, 1))
		must(t, s.DeleteJob(ctx, 1))
		_, err := s.Job(ctx, 1)
		wantErr(t, err, garrison.ErrNotFound)
	}},
}

// checkUpdatedSince lists the jobs updated from a point in time on: those written
// before it are left out, those written at or after it are in, whatever their action.
func checkUpdatedSince(ctx context.Context, t *testing.T, s store.Store) {
	t.Helper()
	before := ok(s.ListJobs(ctx, store.JobFilter{})).get(t)
	var latest time.Time
	for _, j := range before {
		if j.UpdatedAt.After(latest) {
			latest = j.UpdatedAt
		}
	}
	since := latest.Add(time.Microsecond)
	time.Sleep(2 * time.Millisecond) // the next writes are later than since on any clock
	for _, id := range []int64{2, 4} {
		ok(s.UpsertJob(ctx, id, func(j *garrison.Job, _ bool) error {
			j.EntityID, j.Action = "e1", garrison.JobInProgress
			return nil
		})).get(t)
	}
	for _, tc := range []struct {
		name string
		f    store.JobFilter
		want []int64
	}{
		{"entity", store.JobFilter{EntityID: "e1", UpdatedSince: since}, []int64{2, 4}},
		{"every entity", store.JobFilter{UpdatedSince: since}, []int64{2, 4}},
		{"other entity", store.JobFilter{EntityID: "e2", UpdatedSince: since}, []int64{}},
		{"action", store.JobFilter{EntityID: "e1", UpdatedSince: since, Action: garrison.JobQueued}, []int64{}},
		{"from the start", store.JobFilter{EntityID: "e1", UpdatedSince: latest.Add(-time.Hour)}, []int64{1, 2, 4}},
	} {
		t.Run("since/"+tc.name, func(t *testing.T) {
			list := ok(s.ListJobs(ctx, tc.f)).get(t)
			ids := make([]int64, 0, len(list))
			for _, j := range list {
				ids = append(ids, j.ID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Fatalf("ids %v, want %v", ids, tc.want)
			}
		})
	}
}

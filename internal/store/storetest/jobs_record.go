package storetest

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// jobRecordCases cover RecordJob: a job and its runner's instance in one write.
var jobRecordCases = []testCase{
	{"Jobs/RecordWithInstance", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		var given garrison.Job
		j, in, err := s.RecordJob(ctx, store.JobRecord{
			ID: 5, Job: func(j *garrison.Job, exists bool) error {
				j.Action, j.EntityID, j.RunnerName = garrison.JobInProgress, f.entity.ID, "runner-1"
				return nil
			},
			Runner: "runner-1",
			Instance: func(i *garrison.Instance, j garrison.Job) bool {
				given = j
				i.RunnerStatus, i.JobID = garrison.RunnerActive, j.ID
				i.StatusMessages = append(i.StatusMessages, garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "started"})
				return true
			},
		})
		must(t, err)
		wantEqual(t, "job given to the instance update", given.Action, garrison.JobInProgress)
		wantEqual(t, "job seq given to the instance update", given.Seq, j.Seq)
		if in == nil {
			t.Fatal("no instance returned for an update that was written")
		}
		wantEqual(t, "returned runner status", in.RunnerStatus, garrison.RunnerActive)
		got := ok(s.Instance(ctx, "runner-1")).get(t)
		wantEqual(t, "runner status", got.RunnerStatus, garrison.RunnerActive)
		wantEqual(t, "job id", got.JobID, int64(5))
		if n := len(got.StatusMessages); n != 1 || got.StatusMessages[0].Message != "started" {
			t.Fatalf("status messages %+v, want the one appended", got.StatusMessages)
		}
		wantEqual(t, "job action", ok(s.Job(ctx, 5)).get(t).Action, garrison.JobInProgress)
	}},
	{"Jobs/RecordDeclinedOrMissingInstance", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		before := ok(s.CreateInstance(ctx, newInstance("runner-1", f.pool.ID))).get(t)
		for i, runner := range []string{"runner-1", "gone", ""} {
			id := int64(10 + i)
			_, in, err := s.RecordJob(ctx, store.JobRecord{
				ID:       id,
				Job:      func(j *garrison.Job, _ bool) error { j.Action = garrison.JobQueued; return nil },
				Runner:   runner,
				Instance: func(i *garrison.Instance, _ garrison.Job) bool { i.RunnerStatus = garrison.RunnerActive; return false },
			})
			must(t, err)
			if in != nil {
				t.Fatalf("runner %q: instance %+v returned, want nil", runner, *in)
			}
			wantEqual(t, "job written", ok(s.Job(ctx, id)).get(t).Action, garrison.JobQueued)
		}
		got := ok(s.Instance(ctx, "runner-1")).get(t)
		wantEqual(t, "runner status of a declined update", got.RunnerStatus, garrison.RunnerPending)
		wantEqual(t, "updated at of a declined update", got.UpdatedAt, before.UpdatedAt)
	}},
	{"Jobs/RecordIsOneWrite", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		taken := newInstance("runner-1", f.pool.ID)
		taken.ProviderID = "prov-1"
		ok(s.CreateInstance(ctx, taken)).get(t)
		ok(s.CreateInstance(ctx, newInstance("runner-2", f.pool.ID))).get(t)
		called := false
		_, _, err := s.RecordJob(ctx, store.JobRecord{
			ID:       20,
			Job:      func(*garrison.Job, bool) error { return errCallback },
			Runner:   "runner-2",
			Instance: func(*garrison.Instance, garrison.Job) bool { called = true; return true },
		})
		if err != errCallback {
			t.Fatalf("got %v, want the job callback's error unchanged", err)
		}
		wantEqual(t, "instance update called after a failed job update", called, false)
		// An instance write that fails takes the job's write back with it.
		_, _, err = s.RecordJob(ctx, store.JobRecord{
			ID:       21,
			Job:      func(j *garrison.Job, _ bool) error { j.Action = garrison.JobQueued; return nil },
			Runner:   "runner-2",
			Instance: func(i *garrison.Instance, _ garrison.Job) bool { i.ProviderID = "prov-1"; return true },
		})
		wantErr(t, err, garrison.ErrConflict)
		_, err = s.Job(ctx, 21)
		wantErr(t, err, garrison.ErrNotFound)
		wantEqual(t, "provider id", ok(s.Instance(ctx, "runner-2")).get(t).ProviderID, "")
	}},
}

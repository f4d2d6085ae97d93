package metrics

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

func TestStages(t *testing.T) {
	queued := garrison.Job{ID: 1, Action: garrison.JobQueued}
	locked := garrison.Job{ID: 1, Action: garrison.JobQueued, LockedBy: "i1"}
	running := garrison.Job{ID: 1, Action: garrison.JobInProgress, LockedBy: "i1", RunnerName: "r1"}
	done := garrison.Job{ID: 1, Action: garrison.JobCompleted, LockedBy: "i1", RunnerName: "r1"}
	tests := []struct {
		name    string
		before  garrison.Job
		existed bool
		after   garrison.Job
		want    []string
	}{
		{"first record", garrison.Job{}, false, queued, nil},
		{"queued again", queued, true, queued, nil},
		{"runner bound", queued, true, locked, []string{StageAssigned}},
		{"bound to another runner", locked, true, garrison.Job{ID: 1, Action: garrison.JobQueued, LockedBy: "i2"}, nil},
		{"started", locked, true, running, []string{StageStarted}},
		{"started on a runner the forge names", queued, true, garrison.Job{ID: 1, Action: garrison.JobInProgress, RunnerName: "r9"}, []string{StageAssigned, StageStarted}},
		{"in progress again", running, true, running, nil},
		{"completed", running, true, done, []string{StageCompleted}},
		{"completed again", done, true, done, nil},
		{"completed at once after running", locked, true, done, []string{StageStarted, StageCompleted}},
		{"first heard of when completed", garrison.Job{}, false, done, []string{StageAssigned, StageStarted, StageCompleted}},
		{"cancelled while queued", queued, true, garrison.Job{ID: 1, Action: garrison.JobCompleted}, nil},
		{"cancelled after a runner was bound", locked, true, garrison.Job{ID: 1, Action: garrison.JobCompleted, LockedBy: "i1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stages(tt.before, tt.existed, tt.after); !slices.Equal(got, tt.want) {
				t.Errorf("Stages = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestObservedStore: ledger writes through ObservedStore, whoever makes them, observe each
// stage once, labelled with the forge, the entity and the pool of the job's runner, even
// after that runner is gone.
func TestObservedStore(t *testing.T) {
	f := seed(t)
	ctx := t.Context()
	m := New()
	st := m.ObserveJobs(f.st)
	start := time.Now()
	st.now = func() time.Time { return start.Add(30 * time.Second) }
	write := func(id int64, edit func(j *garrison.Job)) {
		t.Helper()
		ok(st.UpsertJob(ctx, id, func(j *garrison.Job, exists bool) error {
			if !exists {
				j.EntityID, j.EntityType, j.Labels = f.repo.ID, garrison.Repository, []string{"x64"}
			}
			edit(j)
			return nil
		})).get(t)
	}
	for id := int64(1); id <= 3; id++ {
		write(id, func(j *garrison.Job) { j.Action = garrison.JobQueued })
		write(id, func(j *garrison.Job) { j.LockedBy = f.inst.ID })
		write(id, func(j *garrison.Job) { j.Action, j.RunnerName = garrison.JobInProgress, f.inst.Name })
		write(id, func(j *garrison.Job) { j.Action = garrison.JobInProgress }) // a redelivery
	}
	if err := f.st.DeleteInstance(ctx, f.inst.Name); err != nil {
		t.Fatal(err)
	}
	for id := int64(1); id <= 3; id++ {
		write(id, func(j *garrison.Job) { j.Action = garrison.JobCompleted })
	}
	write(4, func(j *garrison.Job) { j.Action = garrison.JobQueued })
	write(4, func(j *garrison.Job) { j.Action = garrison.JobCompleted }) // cancelled: not observed

	body := scrape(t, m)
	for _, stage := range []string{StageAssigned, StageStarted, StageCompleted} {
		wantLines(t, body, fmt.Sprintf(`garrison_job_queue_seconds_count{entity_id=%q,entity_type="repository",forge="github",pool_id=%q,stage=%q} 3`,
			f.repo.ID, f.pool.ID, stage))
		wantLines(t, body, fmt.Sprintf(`garrison_job_queue_seconds_bucket{entity_id=%q,entity_type="repository",forge="github",pool_id=%q,stage=%q,le="45"} 3`,
			f.repo.ID, f.pool.ID, stage))
	}
}

// TestDeleteCredentialsForgetsBudgets: D-5, through the store as the API deletes them.
func TestDeleteCredentialsForgetsBudgets(t *testing.T) {
	f := seed(t)
	ctx := t.Context()
	m := New()
	st := m.ObserveJobs(f.st)
	c := ok(st.CreateCredentials(ctx, garrison.Credentials{Name: "spare", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "github.com", PAT: "tok2"})).get(t)
	m.ObserveForgeRateLimit(c.ID, c.Name, c.Endpoint, "core", garrison.RateLimit{Limit: 5000, Remaining: 10})
	wantLines(t, scrape(t, m), `garm_github_rate_limit_remaining{credential_id="`+fmt.Sprint(c.ID)+`",credential_name="spare",endpoint="github.com"} 10`)
	if err := st.DeleteCredentials(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if body := scrape(t, m); strings.Contains(body, `"spare"`) {
		t.Error("budget series of deleted credentials remain")
	}
}

package garrison_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

func TestJobActionRank(t *testing.T) {
	tests := []struct {
		action garrison.JobAction
		want   int
	}{
		{"queued", 1},
		{"in_progress", 2},
		{"completed", 3},
		{"", 0},
		{"waiting", 0},
		{"Queued", 0}, // actions are compared exactly
	}
	for _, tt := range tests {
		t.Run(string(tt.action), func(t *testing.T) {
			if got := tt.action.Rank(); got != tt.want {
				t.Fatalf("JobAction(%q).Rank() = %d, want %d", tt.action, got, tt.want)
			}
		})
	}
}

// ledgerJob is a job as the ledger knows it after a queued report.
func ledgerJob() garrison.Job {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	return garrison.Job{
		ID: 7, Seq: 3, RunID: 70, Action: garrison.JobQueued, Status: "queued", Name: "build",
		RepositoryName: "repo", RepositoryOwner: "org", WorkflowRunURL: "https://github.com/org/repo/actions/runs/70",
		Labels: []string{"self-hosted", "linux"}, EntityID: "ent-1", EntityType: garrison.Repository,
		LockedBy: "inst-1", Reason: "waiting for a runner", CreatedAt: t0, UpdatedAt: t0,
	}
}

func TestJobAdvance(t *testing.T) {
	started := time.Date(2026, 11, 24, 10, 1, 0, 0, time.UTC)
	done := time.Date(2026, 11, 24, 10, 5, 0, 0, time.UTC)
	tests := []struct {
		name    string
		cur     func() garrison.Job
		u       garrison.Job
		want    func() garrison.Job // nil: cur unchanged
		refused bool
	}{
		{
			name: "queued to in_progress records the runner",
			cur:  ledgerJob,
			u: garrison.Job{ID: 7, Action: garrison.JobInProgress, Status: "in_progress", StartedAt: started,
				RunnerID: 11, RunnerName: "garm-1", RunnerGroupID: 2, RunnerGroupName: "default"},
			want: func() garrison.Job {
				j := ledgerJob()
				j.Action, j.Status, j.StartedAt = garrison.JobInProgress, "in_progress", started
				j.RunnerID, j.RunnerName, j.RunnerGroupID, j.RunnerGroupName = 11, "garm-1", 2, "default"
				return j
			},
		},
		{
			name: "queued to completed skips in_progress",
			cur:  ledgerJob,
			u:    garrison.Job{ID: 7, Action: garrison.JobCompleted, Status: "completed", Conclusion: "cancelled", CompletedAt: done},
			want: func() garrison.Job {
				j := ledgerJob()
				j.Action, j.Status, j.Conclusion, j.CompletedAt = garrison.JobCompleted, "completed", "cancelled", done
				return j
			},
		},
		{
			name: "equal rank refreshes the fields",
			cur: func() garrison.Job {
				j := ledgerJob()
				j.Action, j.Conclusion, j.CompletedAt = garrison.JobCompleted, "failure", started
				return j
			},
			u: garrison.Job{ID: 7, Action: garrison.JobCompleted, Conclusion: "success", CompletedAt: done},
			want: func() garrison.Job {
				j := ledgerJob()
				j.Action, j.Conclusion, j.CompletedAt = garrison.JobCompleted, "success", done
				return j
			},
		},
		{
			name: "empty and zero fields erase nothing",
			cur: func() garrison.Job {
				j := ledgerJob()
				j.Action, j.StartedAt, j.RunnerID, j.RunnerName = garrison.JobInProgress, started, 11, "garm-1"
				return j
			},
			u: garrison.Job{ID: 7, Action: garrison.JobInProgress},
			want: func() garrison.Job {
				j := ledgerJob()
				j.Action, j.StartedAt, j.RunnerID, j.RunnerName = garrison.JobInProgress, started, 11, "garm-1"
				return j
			},
		},
		{
			name: "new labels replace the old ones",
			cur:  ledgerJob,
			u:    garrison.Job{ID: 7, Action: garrison.JobQueued, Labels: []string{"gpu"}},
			want: func() garrison.Job {
				j := ledgerJob()
				j.Labels = []string{"gpu"}
				return j
			},
		},
		{
			name: "entity, lock, reason and ids are the caller's",
			cur:  ledgerJob,
			u: garrison.Job{ID: 8, Seq: 9, Action: garrison.JobQueued, EntityID: "ent-2", EntityType: garrison.Organization,
				LockedBy: "inst-2", Reason: "other", CreatedAt: done, UpdatedAt: done},
			want: ledgerJob,
		},
		{
			name:    "completed cannot go back to in_progress",
			cur:     func() garrison.Job { j := ledgerJob(); j.Action = garrison.JobCompleted; return j },
			u:       garrison.Job{ID: 7, Action: garrison.JobInProgress, RunnerName: "garm-2"},
			refused: true,
		},
		{
			name:    "in_progress cannot go back to queued",
			cur:     func() garrison.Job { j := ledgerJob(); j.Action = garrison.JobInProgress; return j },
			u:       garrison.Job{ID: 7, Action: garrison.JobQueued, Status: "queued"},
			refused: true,
		},
		{
			name:    "an unknown action ranks below queued",
			cur:     ledgerJob,
			u:       garrison.Job{ID: 7, Action: "waiting", Name: "renamed"},
			refused: true,
		},
		{
			name: "an unknown action on a job without one refreshes the fields only",
			cur:  func() garrison.Job { j := ledgerJob(); j.Action = ""; return j },
			u:    garrison.Job{ID: 7, Action: "waiting", Name: "renamed"},
			want: func() garrison.Job { j := ledgerJob(); j.Action, j.Name = "", "renamed"; return j },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := tt.cur()
			err := j.Advance(tt.u)
			want := tt.want
			if tt.refused {
				if !errors.Is(err, garrison.ErrInvalid) {
					t.Fatalf("Advance = %v, want an EInvalid error", err)
				}
				want = tt.cur
			} else if err != nil {
				t.Fatalf("Advance = %v", err)
			}
			if !reflect.DeepEqual(j, want()) {
				t.Fatalf("after Advance:\n got %+v\nwant %+v", j, want())
			}
		})
	}
}

// TestJobAdvanceCopiesLabels checks that the job does not share the report's label slice.
func TestJobAdvanceCopiesLabels(t *testing.T) {
	j := ledgerJob()
	u := garrison.Job{ID: 7, Action: garrison.JobQueued, Labels: []string{"gpu", "linux"}}
	if err := j.Advance(u); err != nil {
		t.Fatal(err)
	}
	u.Labels[0] = "changed"
	if j.Labels[0] != "gpu" {
		t.Fatalf("job labels follow the report's slice: %q", j.Labels)
	}
}

func TestMatchingPools(t *testing.T) {
	pool := func(id string, enabled bool, tags ...string) garrison.Pool {
		return garrison.Pool{ID: id, Enabled: enabled, Tags: garrison.TagsFromNames(tags)}
	}
	pools := []garrison.Pool{
		pool("linux", true, "self-hosted", "linux"),
		pool("gpu", true, "self-hosted", "Linux", "GPU"),
		pool("off", false, "self-hosted", "linux"),
		pool("bare", true),
	}
	tests := []struct {
		name   string
		labels []string
		want   []string // pool ids, in order
	}{
		{"no labels match nothing", nil, nil},
		{"empty labels match nothing", []string{}, nil},
		{"a subset of the tags", []string{"linux"}, []string{"linux", "gpu"}},
		{"all the tags", []string{"self-hosted", "linux"}, []string{"linux", "gpu"}},
		{"case-insensitive", []string{"SELF-HOSTED", "gpu"}, []string{"gpu"}},
		{"a repeated label", []string{"linux", "linux"}, []string{"linux", "gpu"}},
		{"one label no pool has", []string{"linux", "arm64"}, nil},
		{"labels are not trimmed", []string{" linux"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range garrison.MatchingPools(pools, tt.labels) {
				got = append(got, p.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("MatchingPools(%q) = %q, want %q", tt.labels, got, tt.want)
			}
		})
	}
}

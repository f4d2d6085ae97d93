package scaleset_test

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

func (s *simEnv) ledger() []garrison.Job {
	s.t.Helper()
	jobs, err := s.st.ListJobs(s.t.Context(), store.JobFilter{EntityID: s.e.ID})
	if err != nil {
		s.t.Fatal(err)
	}
	return jobs
}

func countJobs(jobs []garrison.Job, keep func(garrison.Job) bool) int {
	n := 0
	for _, j := range jobs {
		if keep(j) {
			n++
		}
	}
	return n
}

// TestSimJobsInLedger: scale-set jobs are in the job ledger the pools use: waiting jobs
// queued with the scale set as their reason, then in progress on our runner, then
// completed with the workflow conclusion, each once (github.com and GHES flows).
func TestSimJobsInLedger(t *testing.T) {
	for _, tc := range []struct {
		name string
		ghes bool
	}{{"assigned", false}, {"acquire", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimEnv(t, tc.ghes, 1, 0)
			c := s.controller("replica-a")
			s.until(c, 5, "session open", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-a" })
			s.queue(3)
			reason := garrison.ReasonScaleSet(s.ss.Name)
			s.until(c, 20, "three jobs waiting in the ledger", func() bool {
				return countJobs(s.ledger(), func(j garrison.Job) bool {
					return j.Action == garrison.JobQueued && j.Reason == reason && len(j.Labels) > 0 && j.RepositoryName == "app"
				}) >= 2 // one may already run: max runners is 1
			})
			sawRunning := false
			s.until(c, 300, "all jobs served", func() bool {
				sawRunning = sawRunning || countJobs(s.ledger(), func(j garrison.Job) bool {
					return j.Action == garrison.JobInProgress && j.RunnerName != "" && !j.StartedAt.IsZero() && j.Reason == ""
				}) > 0
				return s.completed() == 3
			})
			s.until(c, 20, "all completed in the ledger", func() bool {
				return countJobs(s.ledger(), func(j garrison.Job) bool { return j.Action == garrison.JobCompleted }) == 3
			})
			if !sawRunning {
				t.Error("no job was seen in progress on a runner")
			}
			jobs := s.ledger()
			if len(jobs) != 3 {
				t.Fatalf("%d ledger rows, want 3: %+v", len(jobs), jobs)
			}
			for _, j := range jobs {
				if j.Conclusion != "success" || j.RunnerName == "" || j.CompletedAt.IsZero() || j.EntityID != s.e.ID || j.ID >= 0 {
					t.Errorf("completed job %+v", j)
				}
			}
		})
	}
}

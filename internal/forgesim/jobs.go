package forgesim

import (
	"fmt"
	"time"

	"github.com/garrison-ci/garrison"
)

// Job is a snapshot of a simulated workflow job.
type Job struct {
	ID          int64
	RunID       int64
	Repo        string // owner/name
	Name        string
	Labels      []string
	Status      string // queued, in_progress, completed
	Conclusion  string
	RunnerID    int64
	RunnerName  string
	CreatedAt   time.Time
	StartedAt   time.Time
	CompletedAt time.Time
	Duration    time.Duration // how long a stand-in runner should run it; 0 = its default
	ScaleSetID  int64         // the runner scale set it went to; 0 when none
}

func (j *job) snapshot() Job {
	return Job{
		ID: j.id, RunID: j.runID, Repo: j.repo.fullName(), Name: j.name,
		Labels: append([]string(nil), j.labels...), Status: j.status, Conclusion: j.conclusion,
		RunnerID: j.runnerID, RunnerName: j.runnerName,
		CreatedAt: j.createdAt, StartedAt: j.startedAt, CompletedAt: j.completedAt,
		Duration: j.duration, ScaleSetID: j.setID,
	}
}

// Jobs returns all jobs, by id.
func (s *Sim) Jobs() []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Job
	for _, id := range sortedIDs(s.st.jobs) {
		out = append(out, s.st.jobs[id].snapshot())
	}
	return out
}

// Job returns one job.
func (s *Sim) Job(id int64) (Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.st.jobs[id]
	if j == nil {
		return Job{}, false
	}
	return j.snapshot(), true
}

// QueueJob starts a workflow run with one job with the given runs-on labels in repository
// "owner/name" and sends the queued webhooks. It returns the job id.
func (s *Sim) QueueJob(repoName string, labels ...string) (int64, error) {
	return s.QueueJobFor(repoName, 0, labels...)
}

// QueueJobFor is QueueJob for a job that a stand-in runner "runs" for d (0: the runner's
// default).
func (s *Sim) QueueJobFor(repoName string, d time.Duration, labels ...string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.st.repoLocked(repoName)
	if rp == nil {
		return 0, fmt.Errorf("forgesim: repository %q: %w", repoName, garrison.ErrNotFound)
	}
	ru := &run{id: s.st.id(), repo: rp, name: "CI"}
	j := &job{
		id: s.st.id(), runID: ru.id, repo: rp, name: "build", labels: append([]string(nil), labels...),
		status: "queued", createdAt: s.now().UTC().Truncate(time.Second), duration: d,
	}
	ru.jobIDs = append(ru.jobIDs, j.id)
	s.st.runs[ru.id], s.st.jobs[j.id] = ru, j
	s.emitLocked(j, "queued")
	s.routeJobLocked(j)
	return j.id, nil
}

// Acquire lets the runner with this secret (and name, when not empty) take the oldest
// queued job it can run: labels ⊆ runner labels, case-insensitive, in the runner's scope.
// The runner goes online and busy. It returns nil when no job matches; a deleted runner
// gets EUnauthorized.
func (s *Sim) Acquire(name, secret string) (*Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn, err := s.st.runnerForLocked(name, secret)
	if err != nil {
		return nil, err
	}
	if rn.stranded {
		return nil, nil // its connection is gone: it never gets a job
	}
	rn.online, rn.version = true, s.opts.RunnerVersion
	if rn.busy {
		return nil, garrison.Errorf(garrison.EConflict, "forgesim: runner %q already holds job %d", rn.name, rn.jobID)
	}
	for _, id := range sortedIDs(s.st.jobs) {
		j := s.st.jobs[id]
		if j.status != "queued" || j.runner != nil || !s.st.coversLocked(rn.scope, j.repo) || !labelsMatch(j.labels, rn.labels) {
			continue
		}
		// A scale set's job goes to its runners once assigned; other runners skip it.
		if j.setID != rn.setID || (j.setID != 0 && j.setState != setAssigned) {
			continue
		}
		j.runner, j.runnerID, j.runnerName = rn, rn.id, rn.name
		j.groupID, j.groupName = rn.groupID, rn.groupName
		rn.busy, rn.jobID = true, j.id
		snap := j.snapshot()
		return &snap, nil
	}
	return nil, nil
}

// StartJob reports an acquired job in progress and sends the in_progress webhooks.
func (s *Sim) StartJob(jobID int64, secret string) (Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.st.heldJobLocked(jobID, secret)
	if err != nil {
		return Job{}, err
	}
	if j.status != "queued" {
		return Job{}, garrison.Errorf(garrison.EConflict, "forgesim: job %d is %s", jobID, j.status)
	}
	j.status, j.startedAt = "in_progress", s.now().UTC().Truncate(time.Second)
	s.emitLocked(j, "in_progress")
	s.emitSetLocked(j, "JobStarted", nil)
	return j.snapshot(), nil
}

// CompleteJob finishes a job with a conclusion (default "success"). The runner becomes
// idle; an ephemeral runner is deleted before the completed webhooks are sent.
func (s *Sim) CompleteJob(jobID int64, secret, conclusion string) (Job, error) {
	if conclusion == "" {
		conclusion = "success"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.st.heldJobLocked(jobID, secret)
	if err != nil {
		return Job{}, err
	}
	if j.status == "completed" {
		return Job{}, garrison.Errorf(garrison.EConflict, "forgesim: job %d is completed", jobID)
	}
	rn := j.runner
	rn.busy, rn.jobID = false, 0
	if rn.ephemeral {
		delete(s.st.runners, rn.id)
	}
	s.emitSetLocked(j, "JobCompleted", func(e *jobEvent) { e.Result, e.FinishTime = jobResult(conclusion), s.now().UTC() })
	s.finishLocked(j, conclusion)
	return j.snapshot(), nil
}

// CancelJob cancels a job that no runner holds: completed, conclusion cancelled.
func (s *Sim) CancelJob(jobID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.st.jobs[jobID]
	switch {
	case j == nil:
		return fmt.Errorf("forgesim: job %d: %w", jobID, garrison.ErrNotFound)
	case j.runner != nil || j.status != "queued":
		return garrison.Errorf(garrison.EConflict, "forgesim: job %d is held by a runner", jobID)
	}
	s.emitSetLocked(j, "JobCompleted", func(e *jobEvent) { e.Result, e.FinishTime = "canceled", s.now().UTC() })
	s.finishLocked(j, "cancelled")
	return nil
}

func (s *Sim) finishLocked(j *job, conclusion string) {
	now := s.now().UTC().Truncate(time.Second)
	if j.startedAt.IsZero() && j.runner != nil {
		j.startedAt = now
	}
	j.status, j.conclusion, j.completedAt = "completed", conclusion, now
	j.runner = nil
	s.emitLocked(j, "completed")
}

func (st *state) heldJobLocked(jobID int64, secret string) (*job, error) {
	j := st.jobs[jobID]
	if j == nil {
		return nil, fmt.Errorf("forgesim: job %d: %w", jobID, garrison.ErrNotFound)
	}
	if j.runner == nil || j.runner.secret != secret {
		return nil, fmt.Errorf("forgesim: job %d is not held by this runner: %w", jobID, garrison.ErrUnauthorized)
	}
	return j, nil
}

// runStatus derives a run's status and conclusion from its jobs.
func (st *state) runStatusLocked(ru *run) (status, conclusion string) {
	queued, done, failed := 0, 0, false
	for _, id := range ru.jobIDs {
		j := st.jobs[id]
		switch j.status {
		case "queued":
			queued++
		case "completed":
			done++
			failed = failed || j.conclusion != "success"
		}
	}
	switch {
	case done == len(ru.jobIDs):
		if failed {
			return "completed", "failure"
		}
		return "completed", "success"
	case queued == len(ru.jobIDs):
		return "queued", ""
	}
	return "in_progress", ""
}

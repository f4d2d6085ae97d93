package forgesim

import (
	"fmt"
	"time"

	"github.com/garrison-ci/garrison"
)

// ScaleSet is a snapshot of a simulated runner scale set.
type ScaleSet struct {
	ID           int64
	Name         string
	Scope        string // "repos/o/r", "orgs/o" or "enterprises/e"
	GroupID      int64
	Labels       []string
	SessionID    string // "" when no session is open
	SessionOwner string
	Unacked      int // messages delivered and not acknowledged
	Pending      int // job events not yet in a message
	MaxCapacity  int // the last X-ScaleSetMaxCapacity a poll sent
	Stats        ScaleSetStats
}

// ScaleSets returns the runner scale sets, by id.
func (s *Sim) ScaleSets() []ScaleSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ScaleSet
	for _, id := range sortedIDs(s.st.actions.sets) {
		set := s.st.actions.sets[id]
		ss := ScaleSet{
			ID: set.id, Name: set.name, Scope: set.scope.path(), GroupID: set.groupID,
			Labels: append([]string(nil), set.labels...), Unacked: len(set.messages), Pending: len(set.pending),
			MaxCapacity: set.maxCapacity, Stats: s.st.setStatsLocked(set),
		}
		if set.session != nil {
			ss.SessionID, ss.SessionOwner = set.session.id, set.session.owner
		}
		out = append(out, ss)
	}
	return out
}

// SetScaleSetOptions replaces the Actions service options (zero fields: defaults).
func (s *Sim) SetScaleSetOptions(o ScaleSetOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.actions.opts = o.withDefaults()
}

// FailScaleSetCalls makes the next n Actions-service calls (admin and queue) answer
// status (a 5xx, say) with an exception body. n = 0 ends it.
func (s *Sim) FailScaleSetCalls(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.actions.faults.failN, s.st.actions.faults.failStatus = n, status
}

// FailRegistrations makes the next n runner-registration calls answer status (the
// service refuses a fresh registration token for a moment with 401 or 403; clients retry).
func (s *Sim) FailRegistrations(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.actions.faults.regFailN, s.st.actions.faults.regStatus = n, status
}

// SetScaleSetOutage stalls every message stream while on: polls are held and answer 202
// whatever is queued; events pile up and are delivered when it ends.
func (s *Sim) SetScaleSetOutage(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.actions.faults.outage = on
	for _, set := range s.st.actions.sets {
		wakeLocked(set)
	}
}

// ExpireQueueTokens expires the queue tokens of a scale set's sessions: their next use
// answers 401 until the session is refreshed.
func (s *Sim) ExpireQueueTokens(setID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, qt := range s.st.actions.queueTokens {
		if qt.setID == setID {
			qt.expires = s.now().Add(-time.Second)
		}
	}
}

// ExpireAdminTokens expires every admin token: the next admin call answers 401 until the
// client does runner-registration again.
func (s *Sim) ExpireAdminTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.st.actions.adminTokens {
		at.expires = s.now().Add(-time.Second)
	}
}

// OpenForeignSession opens a session on a scale set as another listener would (a session
// conflict for the next create) and returns its id.
func (s *Sim) OpenForeignSession(setID int64, owner string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.st.actions.sets[setID]
	if set == nil {
		return "", fmt.Errorf("forgesim: scale set %d: %w", setID, garrison.ErrNotFound)
	}
	s.closeSessionLocked(set)
	set.session = &session{id: newGUID(), owner: owner, lastPoll: s.now()}
	return set.session.id, nil
}

// CancelAssignment times out the assignment of a scale set's job that has not started:
// the runner that took it (if any) lets it go, JobCompleted with result "canceled" is
// sent, and the job is offered again, up to MaxRequeues times; then it is cancelled.
func (s *Sim) CancelAssignment(jobID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.st.jobs[jobID]
	switch {
	case j == nil:
		return fmt.Errorf("forgesim: job %d: %w", jobID, garrison.ErrNotFound)
	case j.setID == 0 || j.setState != setAssigned || j.status != "queued":
		return garrison.Errorf(garrison.EConflict, "forgesim: job %d is not an assigned job waiting for its runner", jobID)
	}
	s.emitSetLocked(j, "JobCompleted", func(e *jobEvent) { e.Result, e.FinishTime = "canceled", s.now().UTC() })
	if rn := j.runner; rn != nil {
		rn.busy, rn.jobID = false, 0
		j.runner, j.runnerID, j.runnerName = nil, 0, ""
	}
	j.requeues++
	if j.requeues > s.st.actions.opts.MaxRequeues {
		s.finishLocked(j, "cancelled")
		return nil
	}
	if set := s.st.actions.sets[j.setID]; set != nil {
		s.offerLocked(j, set)
		return nil
	}
	j.setID, j.setState = 0, setNone // its scale set is gone: offer it anew
	s.routeJobLocked(j)
	return nil
}

// CompleteEarly sends JobCompleted (succeeded) for a running scale-set job while it keeps
// running, as the service sometimes does; its real completion follows later.
func (s *Sim) CompleteEarly(jobID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.st.jobs[jobID]
	if j == nil {
		return fmt.Errorf("forgesim: job %d: %w", jobID, garrison.ErrNotFound)
	}
	if j.setID == 0 || j.status != "in_progress" {
		return garrison.Errorf(garrison.EConflict, "forgesim: job %d is not a running scale-set job", jobID)
	}
	s.emitSetLocked(j, "JobCompleted", func(e *jobEvent) { e.Result, e.FinishTime = "succeeded", s.now().UTC() })
	return nil
}

// StrandRunner cuts a runner off as an outage can: it shows offline (REST API and agents
// endpoints) and never gets a job, though its process may keep polling. Busy runners
// cannot be stranded.
func (s *Sim) StrandRunner(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn := s.st.runners[id]
	switch {
	case rn == nil:
		return fmt.Errorf("forgesim: runner %d: %w", id, garrison.ErrNotFound)
	case rn.busy:
		return garrison.Errorf(garrison.EConflict, "forgesim: runner %d is running job %d", id, rn.jobID)
	}
	rn.stranded, rn.online = true, false
	return nil
}

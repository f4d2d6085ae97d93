package forgesim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// routeQueuedJobsLocked offers every queued job that no scale set has yet to the first
// scale set (lowest id) whose tenant covers its repository and whose labels hold all of
// the job's.
func (s *Sim) routeQueuedJobsLocked() {
	for _, id := range sortedIDs(s.st.jobs) {
		s.routeJobLocked(s.st.jobs[id])
	}
}

func (s *Sim) routeJobLocked(j *job) {
	if j.setID != 0 || j.status != "queued" || j.runner != nil {
		return
	}
	for _, id := range sortedIDs(s.st.actions.sets) {
		set := s.st.actions.sets[id]
		if !s.st.coversLocked(set.scope, j.repo) || !labelsMatch(j.labels, set.labels) {
			continue
		}
		s.offerLocked(j, set)
		return
	}
}

// offerLocked gives a job to a scale set: JobAvailable (GHES flow) or JobAssigned.
func (s *Sim) offerLocked(j *job, set *scaleSet) {
	j.setID = set.id
	if s.st.actions.opts.Available {
		j.setState = setAvailable
		url := s.serviceBaseLocked(s.baseURL, set.scope) + setsPath + "/" + strconv.FormatInt(set.id, 10) + "/acquirejobs"
		s.emitSetLocked(j, "JobAvailable", func(e *jobEvent) { e.AcquireJobURL = url })
		return
	}
	j.setState = setAssigned
	s.emitSetLocked(j, "JobAssigned", nil)
}

// emitSetLocked adds a job event to the pending events of the job's scale set and wakes
// its long polls.
func (s *Sim) emitSetLocked(j *job, typ string, edit func(*jobEvent)) {
	set := s.st.actions.sets[j.setID]
	if set == nil {
		return
	}
	e := jobEvent{
		MessageType: typ, JobID: setJobID(j), RepositoryName: j.repo.name, OwnerName: j.repo.owner,
		JobWorkflowRef: j.repo.fullName() + "/.github/workflows/ci.yml@refs/heads/main", JobDisplayName: j.name,
		WorkflowRunID: j.runID, EventName: "push", RequestLabels: append([]string{}, j.labels...),
		QueueTime: j.createdAt, ScaleSetAssignTime: j.createdAt,
	}
	if s.st.actions.opts.Available {
		e.RunnerRequestID = j.id // github.com sends 0 and a string jobId
	}
	if j.runner != nil {
		e.RunnerID, e.RunnerName, e.RunnerAssignTime = j.runner.id, j.runner.name, j.startedAt
	}
	if edit != nil {
		edit(&e)
	}
	set.pending = append(set.pending, e)
	wakeLocked(set)
}

// setJobID is the string job id of the messages, derived from the job's id.
func setJobID(j *job) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", j.runID, j.id)
}

// jobResult maps a workflow conclusion to the result of JobCompleted.
func jobResult(conclusion string) string {
	switch conclusion {
	case "success":
		return "succeeded"
	case "failure":
		return "failed"
	case "cancelled":
		return "canceled"
	}
	return conclusion
}

// ScaleSetStats are the statistics of a scale set, in the service's field names.
type ScaleSetStats struct {
	TotalAvailableJobs     int `json:"totalAvailableJobs"`
	TotalAcquiredJobs      int `json:"totalAcquiredJobs"`
	TotalAssignedJobs      int `json:"totalAssignedJobs"`
	TotalRunningJobs       int `json:"totalRunningJobs"`
	TotalRegisteredRunners int `json:"totalRegisteredRunners"`
	TotalBusyRunners       int `json:"totalBusyRunners"`
	TotalIdleRunners       int `json:"totalIdleRunners"`
}

func (st *state) setStatsLocked(set *scaleSet) ScaleSetStats {
	var out ScaleSetStats
	for _, j := range st.jobs {
		if j.setID != set.id || j.status == "completed" {
			continue
		}
		switch j.setState {
		case setAvailable:
			out.TotalAvailableJobs++
		case setAssigned:
			out.TotalAssignedJobs++
			if st.actions.opts.Available {
				out.TotalAcquiredJobs++
			}
			if j.status == "in_progress" {
				out.TotalRunningJobs++
			}
		}
	}
	for _, rn := range st.runners {
		if rn.setID != set.id {
			continue
		}
		out.TotalRegisteredRunners++
		if rn.busy {
			out.TotalBusyRunners++
		}
	}
	out.TotalIdleRunners = out.TotalRegisteredRunners - out.TotalBusyRunners
	return out
}

func (s *Sim) asJITConfig(r *http.Request, c caller) reply {
	var req struct {
		Name       string `json:"name"`
		WorkFolder string `json:"workFolder"`
	}
	if err := decodeJSON(r, &req); err != nil || strings.TrimSpace(req.Name) == "" {
		return exception(http.StatusBadRequest, "ArgumentException", "A runner needs a name.")
	}
	if req.WorkFolder == "" {
		req.WorkFolder = "_work"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set, fail := s.setOfLocked(r, c)
	if fail != nil {
		return *fail
	}
	if s.st.runnerByNameLocked(set.scope, req.Name) != nil {
		return exception(http.StatusConflict, "AgentExistsException", fmt.Sprintf("Agent exists with name %s.", req.Name))
	}
	rn := s.st.addRunnerLocked(set.scope, garrison.GitHub, req.Name, set.labels, true)
	rn.setID, rn.groupID, rn.groupName = set.id, set.groupID, set.groupName
	return ok(http.StatusOK, map[string]any{
		"runner":           agentJSON(rn),
		"encodedJITConfig": encodeJIT(c.base, rn, req.WorkFolder),
	})
}

func agentJSON(rn *runner) map[string]any {
	status := "offline"
	if rn.online {
		status = "online"
	}
	return map[string]any{
		"id": rn.id, "name": rn.name, "runnerScaleSetId": rn.setID, "status": status, "busy": rn.busy,
		"ephemeral": rn.ephemeral, "version": rn.version, "createdOn": time.Time{}.Format(time.RFC3339),
	}
}

func agentNotFound(id string) reply {
	return exception(http.StatusNotFound, "AgentNotFoundException", fmt.Sprintf("No agent found in pool 0 with identifier %s.", id))
}

func (s *Sim) asFindAgents(r *http.Request, c caller) reply {
	name := r.URL.Query().Get("agentName")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{}
	for _, id := range sortedIDs(s.st.runners) {
		rn := s.st.runners[id]
		if rn.forge == garrison.GitHub && rn.scope.key() == c.scope.key() && (name == "" || strings.EqualFold(rn.name, name)) {
			out = append(out, agentJSON(rn))
		}
	}
	return ok(http.StatusOK, map[string]any{"count": len(out), "value": out})
}

func (s *Sim) asGetAgent(r *http.Request, c caller) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn := s.st.runnerInLocked(c.scope, pathID(r, "id"), garrison.GitHub)
	if rn == nil {
		return agentNotFound(r.PathValue("id"))
	}
	return ok(http.StatusOK, agentJSON(rn))
}

func (s *Sim) asDeleteAgent(r *http.Request, c caller) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn := s.st.runnerInLocked(c.scope, pathID(r, "id"), garrison.GitHub)
	if rn == nil {
		return agentNotFound(r.PathValue("id"))
	}
	if rn.busy {
		return exception(http.StatusConflict, "JobStillRunningException", fmt.Sprintf("Agent %s is running job %d.", rn.name, rn.jobID))
	}
	delete(s.st.runners, rn.id)
	return noContent()
}

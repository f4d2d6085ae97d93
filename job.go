package garrison

import (
	"strconv"
	"strings"
	"time"
)

// JobAction is the state of a workflow job as the forge reports it. It only moves forward.
type JobAction string

// Job actions, in order.
const (
	JobQueued     JobAction = "queued"
	JobInProgress JobAction = "in_progress"
	JobCompleted  JobAction = "completed"
)

// Rank orders actions; an unknown action ranks 0.
func (a JobAction) Rank() int {
	switch a {
	case JobQueued:
		return 1
	case JobInProgress:
		return 2
	case JobCompleted:
		return 3
	}
	return 0
}

// Job is a workflow job garrison knows about.
type Job struct {
	ID              int64 // the forge's workflow job id: the ledger's key
	Seq             int64 // the server's own id (the REST API's id): from 1 in the order jobs were first recorded, set by the store
	RunID           int64
	Action          JobAction
	Status          string
	Conclusion      string
	Name            string
	StartedAt       time.Time
	CompletedAt     time.Time
	RunnerID        int64
	RunnerName      string
	RunnerGroupID   int64
	RunnerGroupName string
	RepositoryName  string
	RepositoryOwner string
	WorkflowRunURL  string // the run's web page (RunPageURL)
	Labels          []string
	EntityID        string
	EntityType      EntityType
	LockedBy        string // UUID of the instance made for it, "" when none
	Reason          string // why it is waiting or not served, "" when nothing holds it up
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// runsPath is the path segment of a workflow run's web page on GitHub and Gitea.
const runsPath = "/actions/runs/"

// RunPageURL returns the web page of a workflow job's run, for Job.WorkflowRunURL: the
// job's html_url cut after its run (<repository page>/actions/runs/<run>, the form
// GitHub and Gitea both use), else the repository's web page followed by
// /actions/runs/<runID>; "" when neither gives an http(s) URL.
func RunPageURL(jobHTMLURL, repoHTMLURL string, runID int64) string {
	// The repository's own path may hold the runs path too (owner actions, repository
	// runs), so each occurrence is tried in turn.
	for off := 0; ; {
		i := strings.Index(jobHTMLURL[off:], runsPath)
		if i < 0 {
			break
		}
		if page := runPageAt(jobHTMLURL, off+i); page != "" {
			return page
		}
		off += i + 1
	}
	repo := strings.TrimRight(repoHTMLURL, "/")
	if runID <= 0 || !ValidURL(repo) {
		return ""
	}
	return repo + runsPath + strconv.FormatInt(runID, 10)
}

// runPageAt returns u cut after the run number that follows the runs path at index i,
// or "" when u has no http(s) repository page before i or no run number after it.
func runPageAt(u string, i int) string {
	if i == 0 || !ValidURL(u[:i]) {
		return ""
	}
	rest := u[i+len(runsPath):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || (n < len(rest) && rest[n] != '/') {
		return ""
	}
	return u[:i+len(runsPath)+n]
}

package garrison

import "time"

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
	WorkflowRunURL  string
	Labels          []string
	EntityID        string
	EntityType      EntityType
	LockedBy        string // UUID of the instance made for it, "" when none
	Reason          string // why it is waiting or not served, "" when nothing holds it up
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

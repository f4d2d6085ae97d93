// Package scaleset runs garrison's runner scale sets: one listener per scale set, a
// controller on a work queue, that holds the scale set's one message session on the
// Actions service (forge-api §8), follows its job messages and keeps the number of runners
// the service's statistics ask for (rest-api-2 §2.6).
//
// The session is claimed through the store before it is opened, so that exactly one
// replica of garrison holds it; a claim whose holder died lapses and is taken over, and
// the dead holder's forge session is closed. The id of the last processed message is
// stored before the message is acknowledged: a restart resumes after it, neither losing
// nor replaying work.
//
// A listener step on the queue is short: the long poll runs in its own goroutine per
// held session (poll.go) and hands its message back as a queue key, so a few workers
// serve hundreds of scale sets. The queue token is renewed ahead of its expiry (token.go).
// Job messages also write the job ledger the pools use (ledger.go); runners the service
// shows offline for longer than stranded_runner_timeout are recycled (stranded.go); and
// a scale set the service lost is made again, or put into the error state (check.go).
//
// The package talks to the Actions service through Service, a small consumer-side
// interface, and Forge for the scale set itself; internal/server wires the real client.
package scaleset

import (
	"context"
	"errors"
	"time"

	"github.com/garrison-ci/garrison"
)

// ErrSessionConflict is what CreateSession answers while another session of the scale set
// is open (409 from the service).
var ErrSessionConflict = errors.New("scaleset: another message session is open for this scale set")

// ErrQueueTokenExpired is what GetMessage, AckMessage and AcquireJobs answer when the
// session's queue token expired (401 from the message queue); RefreshSession renews it.
var ErrQueueTokenExpired = errors.New("scaleset: the message queue token expired")

// ErrJobStillRunning is what RemoveRunner answers for a runner that is running a job.
var ErrJobStillRunning = errors.New("scaleset: the runner is running a job")

// Statistics are the service's counters for a scale set.
type Statistics struct {
	TotalAvailableJobs     int
	TotalAcquiredJobs      int
	TotalAssignedJobs      int
	TotalRunningJobs       int
	TotalRegisteredRunners int
	TotalBusyRunners       int
	TotalIdleRunners       int
}

// Session is an open message session. The queue URL and token are the client's business;
// a listener keeps the value and hands it back.
type Session struct {
	ID              string
	MessageQueueURL string
	QueueToken      string
	// QueueTokenExpires is when the queue token expires (zero: unknown); the listener
	// renews the token ahead of it.
	QueueTokenExpires time.Time
	Statistics        Statistics
}

// Job message types (forge-api §8.3).
const (
	JobAvailable = "JobAvailable"
	JobAssigned  = "JobAssigned"
	JobStarted   = "JobStarted"
	JobCompleted = "JobCompleted"
)

// JobMessage is one job event of a message's batch.
type JobMessage struct {
	Type            string
	RunnerRequestID int64
	JobID           string
	RunnerID        int64
	RunnerName      string
	Result          string
	WorkflowRunID   int64
	OwnerName       string
	RepositoryName  string
	JobDisplayName  string
	EventName       string
	RequestLabels   []string
}

// Message is one message of the queue: statistics and a batch of job events.
type Message struct {
	ID         int64
	Statistics Statistics
	Jobs       []JobMessage
}

// JITConfig is a scale-set runner's just-in-time configuration.
type JITConfig struct {
	RunnerID int64
	Name     string
	Files    map[string]string // file name -> base64 content, as instances keep them
}

// Service is what a listener asks of the Actions service, for one entity.
type Service interface {
	// CreateSession opens the scale set's message session; ErrSessionConflict while
	// another is open.
	CreateSession(ctx context.Context, scaleSetID int, owner string) (Session, error)
	// RefreshSession renews the session's queue token.
	RefreshSession(ctx context.Context, scaleSetID int, s Session) (Session, error)
	// DeleteSession closes a session; one already gone is not an error.
	DeleteSession(ctx context.Context, scaleSetID int, sessionID string) error
	// GetMessage long-polls the queue for the first message after lastMessageID; nil
	// when none came (202).
	GetMessage(ctx context.Context, s Session, lastMessageID int64, maxCapacity int) (*Message, error)
	// AckMessage deletes a processed message from the queue.
	AckMessage(ctx context.Context, s Session, messageID int64) error
	// AcquireJobs acquires the jobs of JobAvailable messages (GHES) and returns the
	// request ids acquired.
	AcquireJobs(ctx context.Context, scaleSetID int, s Session, requestIDs []int64) ([]int64, error)
	// GenerateJITConfig registers a runner of the scale set; garrison.ErrConflict when
	// the name is taken.
	GenerateJITConfig(ctx context.Context, scaleSetID int, name string) (JITConfig, error)
	// RemoveRunner deregisters a runner; garrison.ErrNotFound when it is gone,
	// ErrJobStillRunning while it is busy.
	RemoveRunner(ctx context.Context, agentID int64) error
	// Runner returns what the service knows of a runner; garrison.ErrNotFound when it
	// has none.
	Runner(ctx context.Context, agentID int64) (RunnerState, error)
}

// RunnerState is a runner as the service shows it.
type RunnerState struct {
	Online bool
	Busy   bool
}

// Services returns the Actions service client of an entity.
type Services interface {
	Service(ctx context.Context, e garrison.Entity) (Service, error)
}

// Forge keeps the scale set itself on the Actions service, for the listener's start-up
// check.
type Forge interface {
	// ScaleSetExists reports whether the service still has the scale set (by its id).
	ScaleSetExists(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (bool, error)
	// RecreateScaleSet makes the scale set again with its name, labels and runner group
	// and returns its new id.
	RecreateScaleSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (int, error)
}

package forgesim

import (
	"time"
)

// ScaleSetOptions tune the simulated Actions service (runner scale sets). The zero value
// gives the service's own figures.
type ScaleSetOptions struct {
	// Hold is how long a message long poll waits before answering 202 (default 50 s; keep
	// it short in tests).
	Hold time.Duration
	// AdminTokenTTL and QueueTokenTTL are the lifetimes of the admin token from
	// runner-registration and of a session's queue token (default 1 h each).
	AdminTokenTTL, QueueTokenTTL time.Duration
	// SessionIdle is how long a session that is not polled stays open (default 2 min);
	// after it a new session can be created without deleting the old one.
	SessionIdle time.Duration
	// BatchSize bounds the job events of one message (default 50).
	BatchSize int
	// Available selects the GHES flow: a queued job comes as JobAvailable and is the scale
	// set's only after acquirejobs. Otherwise it comes as JobAssigned (github.com).
	Available bool
	// BOM prefixes every Actions-service JSON body with a UTF-8 byte order mark.
	BOM bool
	// MaxRequeues is how often an assignment that timed out is requeued before the job
	// is cancelled (default 3).
	MaxRequeues int
}

func (o ScaleSetOptions) withDefaults() ScaleSetOptions {
	if o.Hold <= 0 {
		o.Hold = 50 * time.Second
	}
	if o.AdminTokenTTL <= 0 {
		o.AdminTokenTTL = time.Hour
	}
	if o.QueueTokenTTL <= 0 {
		o.QueueTokenTTL = time.Hour
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 2 * time.Minute
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 50
	}
	if o.MaxRequeues <= 0 {
		o.MaxRequeues = 3
	}
	return o
}

// actions is the Actions service's state, inside state (guarded by Sim.mu).
type actions struct {
	opts        ScaleSetOptions
	adminTokens map[string]*adminToken // token → its tenant
	queueTokens map[string]*queueToken
	sets        map[int64]*scaleSet
	nextMsgID   int64
	faults      actionsFaults
}

func newActions() actions {
	return actions{
		adminTokens: map[string]*adminToken{},
		queueTokens: map[string]*queueToken{},
		sets:        map[int64]*scaleSet{},
		nextMsgID:   1000,
	}
}

// actionsFaults are the switches of the fault injection.
type actionsFaults struct {
	failN      int // the next failN service calls answer failStatus
	failStatus int
	outage     bool // message polls stall: held, then 202, whatever is queued
	regFailN   int  // the next regFailN runner-registration calls answer regStatus
	regStatus  int
}

type adminToken struct {
	scope   scope
	expires time.Time
}

type queueToken struct {
	setID   int64
	session string
	expires time.Time
}

// scaleSet is a runner scale set of a tenant (a repository, organization or enterprise).
type scaleSet struct {
	id            int64
	scope         scope
	name          string
	groupID       int64
	groupName     string
	labels        []string
	disableUpdate bool
	createdOn     time.Time
	session       *session
	messages      []*message    // cut, not acknowledged; oldest first
	pending       []jobEvent    // events not yet in a message
	notify        chan struct{} // closed when an event arrives (wakes long polls)
	maxCapacity   int           // last X-ScaleSetMaxCapacity seen
}

type session struct {
	id       string
	owner    string
	lastPoll time.Time
}

type message struct {
	id     int64
	events []jobEvent
}

// jobEvent is one job event of a message body, in the service's field names.
type jobEvent struct {
	MessageType        string    `json:"messageType"`
	RunnerRequestID    int64     `json:"runnerRequestId"`
	JobID              string    `json:"jobId"`
	RepositoryName     string    `json:"repositoryName"`
	OwnerName          string    `json:"ownerName"`
	JobWorkflowRef     string    `json:"jobWorkflowRef"`
	JobDisplayName     string    `json:"jobDisplayName"`
	WorkflowRunID      int64     `json:"workflowRunId"`
	EventName          string    `json:"eventName"`
	RequestLabels      []string  `json:"requestLabels"`
	QueueTime          time.Time `json:"queueTime"`
	ScaleSetAssignTime time.Time `json:"scaleSetAssignTime"`
	RunnerAssignTime   time.Time `json:"runnerAssignTime"`
	FinishTime         time.Time `json:"finishTime"`
	AcquireJobURL      string    `json:"acquireJobUrl,omitempty"`
	RunnerID           int64     `json:"runnerId,omitempty"`
	RunnerName         string    `json:"runnerName,omitempty"`
	Result             string    `json:"result,omitempty"`
}

// Scale-set job states (job.setState), next to the job's workflow status.
const (
	setNone      = ""          // not a scale set's job
	setAvailable = "available" // offered (GHES), waiting for acquirejobs
	setAssigned  = "assigned"  // the scale set's; a runner of it may take it
)

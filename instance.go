package garrison

import "time"

// InstanceStatus is the lifecycle state of the compute instance behind a runner.
type InstanceStatus string

// Instance statuses (instance-api.md §9.1).
const (
	InstancePendingCreate      InstanceStatus = "pending_create"
	InstanceCreating           InstanceStatus = "creating"
	InstanceRunning            InstanceStatus = "running"
	InstanceStopped            InstanceStatus = "stopped"
	InstanceError              InstanceStatus = "error"
	InstancePendingDelete      InstanceStatus = "pending_delete"
	InstancePendingForceDelete InstanceStatus = "pending_force_delete"
	InstanceDeleting           InstanceStatus = "deleting"
	InstanceDeleted            InstanceStatus = "deleted"
	InstanceUnknown            InstanceStatus = "unknown"
)

var instanceTransitions = map[InstanceStatus][]InstanceStatus{
	InstancePendingCreate:      {InstanceCreating, InstancePendingDelete, InstancePendingForceDelete},
	InstanceCreating:           {InstanceRunning, InstanceError},
	InstanceRunning:            {InstancePendingDelete, InstancePendingForceDelete, InstanceStopped, InstanceUnknown},
	InstanceStopped:            {InstanceRunning, InstancePendingDelete, InstancePendingForceDelete, InstanceUnknown},
	InstanceError:              {InstancePendingDelete, InstancePendingForceDelete, InstanceDeleting, InstanceUnknown},
	InstancePendingDelete:      {InstanceDeleting, InstancePendingForceDelete},
	InstancePendingForceDelete: {InstanceDeleting},
	InstanceDeleting:           {InstanceDeleted, InstanceError},
	InstanceDeleted:            nil,
}

// Valid reports whether s is a known instance status.
func (s InstanceStatus) Valid() bool {
	_, ok := instanceTransitions[s]
	return ok || s == InstanceUnknown
}

// CanTransition reports whether a normal update may move an instance from s to next.
// Staying put is always allowed; unknown may become anything.
func (s InstanceStatus) CanTransition(next InstanceStatus) bool {
	if s == next || s == InstanceUnknown {
		return next.Valid()
	}
	for _, t := range instanceTransitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// Deleting reports whether the instance is on its way out.
func (s InstanceStatus) Deleting() bool {
	switch s {
	case InstancePendingDelete, InstancePendingForceDelete, InstanceDeleting, InstanceDeleted:
		return true
	}
	return false
}

// RunnerStatus is the state of the forge runner inside an instance.
type RunnerStatus string

// Runner statuses (instance-api.md §9.2).
const (
	RunnerPending    RunnerStatus = "pending"
	RunnerInstalling RunnerStatus = "installing"
	RunnerIdle       RunnerStatus = "idle"
	RunnerActive     RunnerStatus = "active"
	RunnerFailed     RunnerStatus = "failed"
	RunnerOffline    RunnerStatus = "offline"
	RunnerOnline     RunnerStatus = "online"
	RunnerTerminated RunnerStatus = "terminated"
	RunnerUnknown    RunnerStatus = "unknown"
)

var runnerTransitions = map[RunnerStatus][]RunnerStatus{
	RunnerPending:    {RunnerInstalling, RunnerFailed, RunnerTerminated, RunnerActive},
	RunnerInstalling: {RunnerIdle, RunnerFailed, RunnerTerminated, RunnerActive, RunnerOffline},
	RunnerIdle:       {RunnerActive, RunnerOffline, RunnerTerminated},
	RunnerOffline:    {RunnerIdle, RunnerActive, RunnerTerminated},
	RunnerActive:     {RunnerTerminated},
	RunnerFailed:     {RunnerTerminated},
	RunnerTerminated: nil,
}

// Valid reports whether s is a known runner status.
func (s RunnerStatus) Valid() bool {
	_, ok := runnerTransitions[s]
	return ok || s == RunnerOnline || s == RunnerUnknown
}

// CanTransition reports whether the runner may move from s to next. online and unknown are
// treated like offline, as GARM leaves them undefined.
func (s RunnerStatus) CanTransition(next RunnerStatus) bool {
	if !next.Valid() {
		return false
	}
	if s == next {
		return true
	}
	if s == RunnerOnline || s == RunnerUnknown {
		s = RunnerOffline
	}
	for _, t := range runnerTransitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// Address is a network address of an instance.
type Address struct {
	Address string
	Type    string // public or private
}

// MaxStatusMessages is how many status messages are kept per instance.
const MaxStatusMessages = 30

// Instance is one compute instance made by a provider for one runner.
type Instance struct {
	ID            string // UUID
	Name          string // unique; also the forge runner name
	PoolID        string // empty for a runner of a scale set
	ScaleSetID    uint   // local id of its scale set; 0 for a pool runner
	ProviderName  string
	ProviderID    string // the provider's id for it; empty until create returns
	AgentID       int64  // forge runner id
	OSType        string
	OSName        string
	OSVersion     string
	OSArch        string
	Addresses     []Address
	Status        InstanceStatus
	RunnerStatus  RunnerStatus
	ProviderFault []byte
	CreateAttempt int
	TokenFetched  bool
	JITConfig     map[string]string // file name -> base64 content; sealed at rest
	RunnerGroup   string
	Generation    uint64 // the pool generation it was made from
	MetadataURL   string
	CallbackURL   string
	Heartbeat     time.Time
	JobID         int64 // job bound to it, 0 if none
	CreatedAt     time.Time
	UpdatedAt     time.Time

	StatusMessages []Event // newest last; filled on single-instance reads
}

// InstanceIdentity is who a runner instance is to the metadata and callback endpoints:
// what its instance token says (instance-api.md §1).
type InstanceIdentity struct {
	ID            string // the instance's UUID
	Name          string
	PoolID        string
	Scope         EntityType // of the pool's entity
	Entity        string     // the entity's full name
	CreateAttempt int
	ForgeType     ForgeType
}

// IdentityOf returns the identity of an instance of a pool of entity e.
func IdentityOf(in Instance, e Entity) InstanceIdentity {
	return InstanceIdentity{ID: in.ID, Name: in.Name, PoolID: in.PoolID, Scope: e.Type, Entity: e.FullName(),
		CreateAttempt: in.CreateAttempt, ForgeType: e.ForgeType}
}

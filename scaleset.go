package garrison

import (
	"encoding/json"
	"time"
)

// ScaleSetState is where a scale set stands with the forge (rest-api-2 §2.2).
type ScaleSetState string

// Scale set states.
const (
	ScaleSetPendingCreate      ScaleSetState = "pending_create"
	ScaleSetCreated            ScaleSetState = "created"
	ScaleSetError              ScaleSetState = "error"
	ScaleSetPendingDelete      ScaleSetState = "pending_delete"
	ScaleSetPendingForceDelete ScaleSetState = "pending_force_delete"
)

// DefaultRunnerGroup is the runner group a scale set joins when none is given.
const DefaultRunnerGroup = "Default"

// ScaleSet is a GitHub runner scale set and garrison's record of it: the forge schedules
// jobs onto it by its name, and garrison learns the demand from the Actions service's
// message queue (forge-api §8) rather than from webhooks.
type ScaleSet struct {
	ID                     uint // local id, the one in REST paths
	ScaleSetID             int  // the forge's id; 0 until the forge has the scale set
	Name                   string
	EntityID               string
	EntityType             EntityType // filled by the store on reads
	DisableUpdate          bool
	State                  ScaleSetState
	ExtendedState          string
	RunnerPrefix           string
	ProviderName           string
	Image                  string
	Flavor                 string
	OSType                 string
	OSArch                 string
	MaxRunners             uint
	MinIdleRunners         uint
	Enabled                bool
	DesiredRunnerCount     int // the last statistics.totalAssignedJobs received
	EnableShell            bool
	Generation             uint64 // bumped when the runner definition changes
	RunnerBootstrapTimeout uint   // minutes; 0 means the default
	ExtraSpecs             json.RawMessage
	RunnerGroup            string
	Tags                   []Tag // the extra labels given at creation
	TemplateID             uint
	ProxyID                uint
	// LastMessageID is the id of the last message the listener processed; never exposed.
	LastMessageID int64
	// Session is the claim on the scale set's one message session; never exposed.
	Session   ScaleSetSession
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ScaleSetSession is the durable claim on a scale set's message session. The Actions
// service allows one open session per scale set; the claim makes one replica of garrison
// hold it. Owner is the holder (empty when free), SessionID the forge session the holder
// opened (kept after the holder dies, so that whoever takes over can close it), ExpiresAt
// when the claim lapses unless renewed.
type ScaleSetSession struct {
	Owner     string
	SessionID string
	ExpiresAt time.Time
	// Token is the claim's fencing token: it grows each time another owner claims it.
	Token int64
}

// HeldByOther reports whether someone other than owner holds an unexpired claim at now.
func (s ScaleSetSession) HeldByOther(owner string, now time.Time) bool {
	return s.Owner != "" && s.Owner != owner && s.ExpiresAt.After(now)
}

// BootstrapTimeout returns the effective bootstrap timeout in minutes.
func (s ScaleSet) BootstrapTimeout() uint {
	if s.RunnerBootstrapTimeout == 0 {
		return DefaultRunnerBootstrapTimeout
	}
	return s.RunnerBootstrapTimeout
}

// TargetRunners is the number of runners the scale set should have (forge-api §8.4):
// min(min_idle_runners + desired_runner_count, max_runners).
func (s ScaleSet) TargetRunners() int {
	return ScaleSetTarget(int(s.MinIdleRunners), int(s.MaxRunners), s.DesiredRunnerCount)
}

// Labels returns the GitHub labels of the scale set: its name, then its extra tags.
func (s ScaleSet) Labels() []string {
	out := []string{s.Name}
	for _, t := range s.Tags {
		out = append(out, t.Name)
	}
	return NormalizeTags(out)
}

// Validate checks the invariants every stored scale set must satisfy. The messages are
// GARM's (rest-api-2 §2.3, §2.4).
func (s ScaleSet) Validate() error {
	switch {
	case s.Name == "":
		return Errorf(EInvalid, "missing scale set name")
	case s.ProviderName == "":
		return Errorf(EInvalid, "missing provider")
	case s.MinIdleRunners > s.MaxRunners:
		return Errorf(EInvalid, "min_idle_runners cannot be larger than max_runners")
	case s.Image == "":
		return Errorf(EInvalid, "missing image")
	case s.Flavor == "":
		return Errorf(EInvalid, "missing flavor")
	case !ValidOSType(s.OSType):
		return Errorf(EInvalid, "invalid OS type %s", s.OSType)
	case !ValidOSArch(s.OSArch):
		return Errorf(EInvalid, "invalid OS architecture %s", s.OSArch)
	case len(s.ExtraSpecs) > 0 && !json.Valid(s.ExtraSpecs):
		return Errorf(EInvalid, "extra_specs is not valid JSON")
	case !validScaleSetState(s.State):
		return Errorf(EInvalid, "invalid scale set state %q", s.State)
	}
	return nil
}

func validScaleSetState(s ScaleSetState) bool {
	switch s {
	case ScaleSetPendingCreate, ScaleSetCreated, ScaleSetError, ScaleSetPendingDelete, ScaleSetPendingForceDelete:
		return true
	}
	return false
}

// ScaleSetDefinitionChanged reports whether runners made from a would differ from ones
// made from b: the changes that bump the generation.
func ScaleSetDefinitionChanged(a, b ScaleSet) bool {
	return a.Image != b.Image || a.Flavor != b.Flavor || a.OSType != b.OSType || a.OSArch != b.OSArch ||
		string(a.ExtraSpecs) != string(b.ExtraSpecs) || a.RunnerGroup != b.RunnerGroup ||
		a.EnableShell != b.EnableShell || a.TemplateID != b.TemplateID || a.ProxyID != b.ProxyID
}

// PoolID is the pool id the scale set's runners carry toward providers and in their
// instance tokens: <name>-<entity id>, as GARM names it (rest-api-2 SS-11).
func (s ScaleSet) PoolID() string { return s.Name + "-" + s.EntityID }

// AsPool is the scale set's runner definition in the shape of a pool, for the code that
// creates, bootstraps and deletes runners whatever owns them. Its ID is PoolID; its tags
// are the scale set's labels; it belongs to no pool list. A repository's scale set has no
// runner group of its own (GitHub uses the default one, id 1).
func (s ScaleSet) AsPool() Pool {
	group := s.RunnerGroup
	if s.EntityType == Repository {
		group = ""
	}
	return Pool{
		ID: s.PoolID(), EntityID: s.EntityID, EntityType: s.EntityType, ProviderName: s.ProviderName,
		RunnerPrefix: s.RunnerPrefix, MaxRunners: s.MaxRunners, MinIdleRunners: s.MinIdleRunners,
		Image: s.Image, Flavor: s.Flavor, OSType: s.OSType, OSArch: s.OSArch, Tags: TagsFromNames(s.Labels()),
		Enabled: s.Enabled, RunnerBootstrapTimeout: s.RunnerBootstrapTimeout, ExtraSpecs: s.ExtraSpecs,
		RunnerGroup: group, EnableShell: s.EnableShell, Generation: s.Generation,
		TemplateID: s.TemplateID, ProxyID: s.ProxyID, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
	}
}

// Serves reports whether a job with these labels runs on the scale set: every label is
// one of the scale set's (its name or an extra label), case-insensitively.
func (s ScaleSet) Serves(labels []string) bool {
	if len(labels) == 0 {
		return false
	}
	return s.AsPool().HasLabels(labels)
}

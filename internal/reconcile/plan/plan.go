package plan

import (
	"time"

	"github.com/garrison-ci/garrison"
)

// Spec is what one pool should look like: the pool, every pool of its entity (the pool
// included: jobs are spread over them) and the settings that shape decisions.
type Spec struct {
	Pool     garrison.Pool
	Pools    []garrison.Pool
	Balancer garrison.Balancer
	// MinimumJobAge is the controller's minimum_job_age_backoff: while a matching idle
	// runner exists, a queued job younger than this gets no new runner.
	MinimumJobAge time.Duration
	Policy        Policy
}

// Policy holds the reconciler's own knobs; Plan fills zero fields with defaults.
type Policy struct {
	// MaxCreateAttempts bounds CreateInstance attempts per instance (default 5).
	MaxCreateAttempts int
	// RetryBackoff is the wait before the first create retry; it doubles per attempt
	// up to MaxRetryBackoff (defaults 10s and 5m).
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// ScaleDownGrace is how long a surplus idle runner is left alone (default 5m).
	ScaleDownGrace time.Duration
	// JobTTL: queued jobs older than this are ignored (default 24h, GitHub's limit).
	JobTTL time.Duration
	// HistoryKeep and HistoryTTL bound the retired instances kept as history per pool
	// (defaults 10 and 24h): older or more are reaped.
	HistoryKeep int
	HistoryTTL  time.Duration
	// StrandedAfter: an idle runner the forge lists as offline (or not at all) for this
	// long while its instance runs is recycled (default 10m; each runner waits up to 20%
	// more, spreading the recycling). StrandedPerPass caps the runners of a pool recycled
	// by one repair (default 3).
	StrandedAfter   time.Duration
	StrandedPerPass int
}

// WithDefaults fills zero fields.
func (p Policy) WithDefaults() Policy {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if p.MaxCreateAttempts <= 0 {
		p.MaxCreateAttempts = 5
	}
	def(&p.RetryBackoff, 10*time.Second)
	def(&p.MaxRetryBackoff, 5*time.Minute)
	def(&p.ScaleDownGrace, 5*time.Minute)
	def(&p.JobTTL, 24*time.Hour)
	def(&p.HistoryTTL, 24*time.Hour)
	def(&p.StrandedAfter, 10*time.Minute)
	if p.StrandedPerPass <= 0 {
		p.StrandedPerPass = 3
	}
	if p.HistoryKeep <= 0 {
		p.HistoryKeep = 10
	}
	return p
}

// RetryDelay is the wait before create attempt number attempt+1.
func (p Policy) RetryDelay(attempt int) time.Duration {
	d := p.RetryBackoff
	for i := 1; i < attempt && d < p.MaxRetryBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxRetryBackoff)
}

// Observed is the state the reconciler saw.
type Observed struct {
	Now time.Time
	// Instances are the instances of every pool of the entity.
	Instances []garrison.Instance
	// Jobs are the entity's queued jobs from the ledger.
	Jobs []garrison.Job
	// Busy names the instances with an operation queued or running: the plan leaves them
	// to it (whoever runs it tells the pool when it is done).
	Busy map[string]bool
	// LastUp is, per pool id, when the caller last saw a runner of the pool up (it may
	// have finished and gone since): it ends the pool's failure streak.
	LastUp map[string]time.Time
}

// Actions is what Plan decided for one pool.
type Actions struct {
	Creates  []Create
	Locks    []Lock
	Deletes  []Delete
	Retries  []string // instances in error whose retry is due: clean up and create again
	Resumes  []string // pending_create instances to provision
	Resolves []string // creating instances with no call in flight (a restart)
	// Unserved lists the entity's queued jobs no runner is coming for, with the reason.
	// Every pool's plan reports the same list.
	Unserved []Unserved
	// Reaps are history records (retired instances) to remove.
	Reaps []string
	// Backoff is the pool's failure streak; nil when the pool is healthy.
	Backoff *Backoff
	// RequeueAfter > 0 asks for another look after that delay.
	RequeueAfter time.Duration
}

// Create asks for a new runner; JobID is the job it is made for (0: kept idle).
type Create struct {
	JobID  int64
	Reason string
}

// Lock binds a queued job to a booting runner of the pool made earlier.
type Lock struct {
	JobID      int64
	InstanceID string
}

// Delete removes an instance. Mark says it must first be marked pending_delete (it is
// live); Force ignores provider errors; Retire keeps the record as history (a failed
// runner: its runner status becomes failed and its fault the reason).
type Delete struct {
	Instance string
	Mark     bool
	Force    bool
	Retire   bool
	Reason   string
}

// Unserved is a queued job that gets no runner, and why.
type Unserved struct {
	JobID  int64
	Reason string
}

// Plan decides what to do with spec.Pool given what was observed. It is pure: the same
// inputs give the same actions, and it calls nothing.
func Plan(spec Spec, obs Observed) Actions {
	spec.Policy = spec.Policy.WithDefaults()
	p := newPlanner(spec, obs)
	p.assignJobs()
	p.keepMinIdle()
	p.scaleDown()
	p.lifecycle()
	p.reap()
	p.acts.Backoff = p.target.backoff
	if b := p.target.backoff; b != nil && obs.Now.Before(b.Until) {
		p.wake(b.Until.Sub(obs.Now))
	}
	return p.acts
}

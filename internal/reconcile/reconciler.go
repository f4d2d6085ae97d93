package reconcile

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/workqueue"
	"github.com/garrison-ci/garrison/provider"
)

// Options wire a Reconciler. Store, Providers, Forges and Tokens are required.
type Options struct {
	Store     Store
	Providers Providers
	Forges    Forges
	Tokens    TokenMinter
	// InjectTemplate adds the bootstrap wrapper to extra specs; nil passes them as they are.
	InjectTemplate InjectTemplateFunc
	// Proxy returns a pool's proxy settings; nil means none.
	Proxy func(ctx context.Context, p garrison.Pool) (provider.ProxyConfig, error)
	// Leases, when set, makes a replica claim a pool before acting on it (a reconcile
	// with operations, a repair); a claim lasts LeaseTTL and is renewed while the pool's
	// operations run. nil: this is the only replica.
	Leases Leases
	// Holder names this replica in leases (default: a random name).
	Holder string
	// LeaseTTL is how long a pool claim lasts without renewal (default 1m).
	LeaseTTL time.Duration

	// PoolStatus, when set, is told after each reconcile of a pool whether it worked:
	// err is a configuration error that stops the pool (unknown provider or entity), a
	// *NoDownloadError that fails every create of the pool, or nil. It is also told as
	// soon as a create finds or no longer finds a usable runner download. It must not
	// block.
	PoolStatus func(p garrison.Pool, err error)

	Logger *slog.Logger
	// Now is the clock of every decision (default time.Now).
	Now    func() time.Time
	Policy Policy
	// Workers bounds pools reconciled at once (default 4); MaxOperations bounds the
	// provider and forge operations running at once (default 16).
	Workers       int
	MaxOperations int
	// ResyncInterval is the one timer's period: every pool is looked at (default 1m).
	ResyncInterval time.Duration
	// RepairInterval spaces the three-way repairs of a pool (default 5m).
	RepairInterval time.Duration
	// Pace spaces the reconciles of a pool notified again and again (a webhook flood):
	// the next one waits Pace times the previous one's duration (default 3, at most 1s),
	// so that one busy pool takes at most a quarter of a worker. Negative: no pacing.
	Pace float64
}

func (o Options) validate() error {
	if o.Store == nil || o.Providers == nil || o.Forges == nil || o.Tokens == nil {
		return errors.New("reconcile: Store, Providers, Forges and Tokens are required")
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Holder == "" {
		o.Holder = "replica-" + randomSuffix()
	}
	o.Policy = o.Policy.WithDefaults()
	setDefault(&o.Workers, 4)
	setDefault(&o.MaxOperations, 16)
	setDefault(&o.LeaseTTL, time.Minute)
	setDefault(&o.ResyncInterval, time.Minute)
	setDefault(&o.RepairInterval, 5*time.Minute)
	if o.Pace == 0 {
		o.Pace = 3
	}
	return o
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Reconciler keeps pools converging on their spec. Create it with New, feed it with
// Notify, start it with Run.
type Reconciler struct {
	o   Options
	log *slog.Logger
	q   *workqueue.Queue
	sem chan struct{} // bounds running operations
	// jobs caches each entity's queued jobs.
	jobs *jobCache
	// repairs bounds the three-way repairs running at once.
	repairs chan struct{}
	// passes reports the first pass over every pool after the start.
	passes *firstPass
	// listingMargin: see defaultListingMargin (tests shorten it).
	listingMargin time.Duration
	ops           sync.WaitGroup
	// opsStarted counts operations ever started (tests wait for quiet).
	opsStarted atomic.Int64

	mu         sync.Mutex           // guards the maps below
	inflight   map[string]string    // instance name -> pool id, while an operation runs
	notBefore  map[string]time.Time // next delete attempt of an instance after a failure
	delFails   map[string]int       // consecutive delete failures per instance
	lastRepair map[string]time.Time // pool id -> last three-way repair
	repairing  map[string]bool      // pool ids whose repair runs
	// runnerLists caches each entity's forge runners for the repairs of its pools.
	runnerLists map[string]runnerList
	unserved    map[string]map[int64]string // entity id -> job id -> why it gets no runner
	poolFaults  map[string]error            // pool id -> why every create of it fails
	// groupIgnored: pool id -> the runner group whose ignoring was logged (runnerGroup).
	groupIgnored map[string]string
	reasons      map[string]map[string]int // entity id -> reason -> jobs (for logging)
}

// New returns a Reconciler.
func New(o Options) (*Reconciler, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	r := &Reconciler{
		o: o, log: o.Logger, sem: make(chan struct{}, o.MaxOperations),
		inflight: map[string]string{}, notBefore: map[string]time.Time{}, delFails: map[string]int{},
		lastRepair: map[string]time.Time{}, repairing: map[string]bool{}, runnerLists: map[string]runnerList{}, unserved: map[string]map[int64]string{},
		reasons: map[string]map[string]int{}, poolFaults: map[string]error{}, groupIgnored: map[string]string{},
		jobs:    newJobCache(o.Store, o.Now, o.ResyncInterval),
		repairs: make(chan struct{}, o.Workers), passes: newFirstPass(o.Logger), listingMargin: defaultListingMargin,
	}
	r.q = workqueue.New(r.reconcile, workqueue.Options{
		Workers: o.Workers, Logger: o.Logger, Pace: o.Pace,
		Backoff: workqueue.Backoff{Base: time.Second, Max: 5 * time.Minute},
	})
	return r, nil
}

// Notify asks for the pools to be reconciled. It never blocks; webhooks, API writes,
// instance callbacks and the resync timer call it.
func (r *Reconciler) Notify(poolIDs ...string) {
	for _, id := range poolIDs {
		r.q.Add(id)
	}
}

// Run reconciles until ctx is done: every pool at once (which repairs them), then on
// Notify and every ResyncInterval. It returns after running operations have stopped.
func (r *Reconciler) Run(ctx context.Context) error {
	began := time.Now() // the first pass begins with reading the store
	if err := r.triage(ctx, func(pools []garrison.Pool) { r.passes.start(began, pools) }); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.resyncLoop(ctx)
	}()
	r.q.Run(ctx)
	<-done
	r.ops.Wait()
	return nil
}

// resyncLoop is the one timer: it triages every pool each ResyncInterval.
func (r *Reconciler) resyncLoop(ctx context.Context) {
	t := time.NewTicker(r.o.ResyncInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := r.triage(ctx, nil); err != nil && ctx.Err() == nil {
				r.log.Warn("reconcile: resync failed", slog.Any("error", err))
			}
		}
	}
}

// reconcile is the queue handler for one pool key.
func (r *Reconciler) reconcile(ctx context.Context, poolID string) (workqueue.Result, error) {
	env, err := r.load(ctx, poolID)
	switch {
	case errors.Is(err, garrison.ErrNotFound) && env == nil:
		r.forgetPool(poolID)
		r.passes.done(poolID, stepPlanned, stepRepaired)
		return workqueue.Result{}, nil // the pool is gone
	case errors.Is(err, garrison.ErrNotFound):
		r.reportPool(env.pool, err)
		r.passes.done(poolID, stepPlanned, stepRepaired)
		return workqueue.Result{}, workqueue.Terminal(err) // configuration: unknown provider or entity
	case err != nil:
		return workqueue.Result{}, err
	}
	if held, err := r.claim(ctx, poolID); err != nil || !held {
		if err == nil {
			r.passes.done(poolID, stepPlanned, stepRepaired) // another replica's
		}
		return workqueue.Result{RequeueAfter: r.o.LeaseTTL / 2}, err
	}
	if r.repairDue(poolID) {
		r.startRepair(ctx, env) // in the background: planning from the store is safe meanwhile
	}
	acts := plan.Plan(env.spec(r.o.Policy), r.observed(env))
	r.recordUnserved(ctx, env, acts.Unserved)
	r.execute(ctx, env, acts)
	r.reportPool(env.pool, nil)
	r.passes.done(poolID, stepPlanned)
	return workqueue.Result{RequeueAfter: r.requeueAfter(env, acts)}, nil
}

// reportPool tells Options.PoolStatus how the pool's last reconcile went; a pool that
// reconciled fine still reports the fault that fails its creates (notePoolFault).
func (r *Reconciler) reportPool(p garrison.Pool, err error) {
	if err == nil {
		err = r.poolFault(p.ID)
	}
	if r.o.PoolStatus != nil {
		r.o.PoolStatus(p, err)
	}
}

// claim takes or renews this replica's lease on the pool (always held without Leases).
func (r *Reconciler) claim(ctx context.Context, poolID string) (bool, error) {
	if r.o.Leases == nil {
		return true, nil
	}
	return r.o.Leases.Lease(ctx, "pool/"+poolID, r.o.Holder, r.o.LeaseTTL)
}

// observed snapshots what the plan needs beyond the store.
func (r *Reconciler) observed(env *poolEnv) plan.Observed {
	r.mu.Lock()
	defer r.mu.Unlock()
	obs := plan.Observed{Now: r.o.Now(), Instances: env.instances, Jobs: env.jobs,
		Busy: map[string]bool{}, NotBefore: map[string]time.Time{}}
	for _, in := range env.instances {
		if r.inflight[in.Name] != "" {
			obs.Busy[in.Name] = true
		}
		if nb, ok := r.notBefore[in.Name]; ok {
			obs.NotBefore[in.Name] = nb
		}
	}
	return obs
}

// requeueAfter is the plan's wish, shortened to Poll while operations of the pool run.
func (r *Reconciler) requeueAfter(env *poolEnv, acts plan.Actions) time.Duration {
	d := acts.RequeueAfter
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pool := range r.inflight {
		if pool == env.pool.ID {
			return min(cmpPositive(d, r.o.Policy.Poll), r.o.Policy.Poll)
		}
	}
	return d
}

func cmpPositive(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

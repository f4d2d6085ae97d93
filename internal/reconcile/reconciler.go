package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
	// Leases, when set, makes a replica claim a pool before acting on it (a reconcile, an
	// instance step, a repair); a claim lasts LeaseTTL and is renewed by each of them.
	// nil: this is the only replica.
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
	// Workers bounds pools reconciled at once, and repairs run at once (default 4);
	// sweeps run four times as many at once.
	Workers int
	// InstanceWorkers bounds instance steps (provider and forge calls) run at once
	// (default 64): enough that the steps of a provider or credential waiting on its
	// budget never starve the others.
	InstanceWorkers int
	// ProviderConcurrency bounds the calls running at once to a provider whose settings
	// give no Concurrency of their own, and CredentialConcurrency those to the forge with
	// one credential (default 8 each). A
	// step that finds its budget full waits for a slot without holding a worker, so a
	// provider that hangs or a credential waiting for its rate limit slows only its own
	// pools.
	ProviderConcurrency   int
	CredentialConcurrency int
	// ResyncInterval is the one timer's period: every pool is looked at (default 1m).
	ResyncInterval time.Duration
	// RepairInterval spaces the three-way repairs of a pool (default 5m).
	RepairInterval time.Duration
	// Pace spaces the reconciles of a pool notified again and again (a webhook flood):
	// the next one waits Pace times the previous one's duration (default 3, at most 1s),
	// so that one busy pool takes at most a quarter of a worker. Negative: no pacing.
	Pace float64

	// Sweep, when set, sweeps each entity for lost webhooks every SweepInterval (default
	// DefaultSweepInterval) ± SweepJitter (a fraction, default DefaultSweepJitter), the
	// first time at a random point within SweepStartDelay (default the smaller of the
	// interval and DefaultSweepStartDelay) after the start or after the entity appears.
	Sweep           SweepFunc
	SweepInterval   time.Duration
	SweepStartDelay time.Duration
	SweepJitter     float64

	// Registerer, when set, receives the metrics of the controllers (controller-runtime's
	// workqueue_* and controller_runtime_* families) and garrison's own.
	Registerer prometheus.Registerer
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
	setDefault(&o.InstanceWorkers, 64)
	setDefault(&o.ProviderConcurrency, 8)
	setDefault(&o.CredentialConcurrency, 8)
	setDefault(&o.LeaseTTL, time.Minute)
	setDefault(&o.ResyncInterval, time.Minute)
	setDefault(&o.RepairInterval, 5*time.Minute)
	setDefault(&o.SweepInterval, DefaultSweepInterval)
	setDefault(&o.SweepStartDelay, min(o.SweepInterval, DefaultSweepStartDelay))
	if o.SweepJitter <= 0 {
		o.SweepJitter = DefaultSweepJitter
	}
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
	// The controllers, each a handler on its own queue.
	pools     *workqueue.Queue // key: pool id
	instances *workqueue.Queue // key: instance name
	repairs   *workqueue.Queue // key: pool id
	sweeps    *workqueue.Queue // key: entity id; nil without Options.Sweep
	resync    *workqueue.Queue // one key: resyncKey
	// budgets bound the concurrent calls per provider and per forge credential.
	budgets *budgets
	// jobs caches each entity's queued jobs.
	jobs *jobCache
	// passes reports the first pass over every pool after the start.
	passes *firstPass
	// listingMargin: see defaultListingMargin (tests shorten it).
	listingMargin time.Duration
	// renewEvery spaces the renewals of a claim a handler call holds (default LeaseTTL/3;
	// tests lengthen it to play a paused replica).
	renewEvery time.Duration

	mu sync.Mutex // guards the maps below
	// runnerLists caches each entity's forge runners for the repairs of its pools.
	runnerLists map[string]runnerList
	// hints keep the resync's read of each pool for its next repair.
	hints      map[string]repairHint
	poolFaults map[string]error // pool id -> why every create of it fails
	// backoffs: pool id -> its failure streak (heal.go); lastUp: pool id -> when a runner
	// of it was last seen up.
	backoffs map[string]*plan.Backoff
	lastUp   map[string]time.Time
	// rateLimits: pool id -> until when the forge rate-limits its steps.
	rateLimits map[string]time.Time
	// offline: runner name -> when this process first saw it offline (stranded.go).
	offline map[string]time.Time
	// busy: instance name -> its deletion waiting for the runner's job (busywait.go).
	busy map[string]busyWait
	// groupIgnored: pool id -> the runner group whose ignoring was logged (runnerGroup).
	groupIgnored map[string]string
	// held: pool id -> until when this replica holds its lease, as of its last claim.
	held map[string]time.Time
	// poolEntities: pool id -> its entity's id (a pool never changes entity).
	poolEntities map[string]string
}

// resyncKey is the resync controller's one key.
const resyncKey = "resync"

// New returns a Reconciler.
func New(o Options) (*Reconciler, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	r := &Reconciler{
		o: o, log: o.Logger, runnerLists: map[string]runnerList{}, hints: map[string]repairHint{}, poolFaults: map[string]error{},
		poolEntities: map[string]string{},
		backoffs:     map[string]*plan.Backoff{}, lastUp: map[string]time.Time{}, rateLimits: map[string]time.Time{},
		offline: map[string]time.Time{}, busy: map[string]busyWait{},
		groupIgnored: map[string]string{},
		held:         map[string]time.Time{},
		jobs:         newJobCache(o.Store, o.Now, o.ResyncInterval), passes: newFirstPass(o.Logger),
		budgets:       newBudgets(o.ProviderConcurrency, o.CredentialConcurrency),
		listingMargin: defaultListingMargin,
	}
	var m *workqueue.Metrics
	if o.Registerer != nil {
		var err error
		if m, err = workqueue.NewMetrics(o.Registerer); err != nil {
			return nil, fmt.Errorf("reconcile: register metrics: %w", err)
		}
		for _, c := range append([]prometheus.Collector{budgetCollector{r.budgets}}, r.passes.collectors()...) {
			if err = o.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("reconcile: register metrics: %w", err)
			}
		}
	}
	queue := func(name string, h workqueue.Handler, workers int, backoff workqueue.Backoff, pace float64) *workqueue.Queue {
		return workqueue.New(h, workqueue.Options{Name: name, Workers: workers, Logger: o.Logger, Pace: pace,
			Backoff: backoff, Metrics: m})
	}
	r.pools = queue("pools", r.reconcile, o.Workers, workqueue.Backoff{Base: time.Second, Max: 5 * time.Minute}, o.Pace)
	r.instances = queue("instances", r.reconcileInstance, o.InstanceWorkers,
		workqueue.Backoff{Base: o.Policy.RetryBackoff, Max: o.Policy.MaxRetryBackoff}, 0)
	r.repairs = queue("repairs", r.repairPool, o.Workers, workqueue.Backoff{Base: time.Second, Max: o.RepairInterval}, 0)
	r.resync = queue("resync", r.resyncAll, 1, workqueue.Backoff{Base: time.Second, Max: o.ResyncInterval}, 0)
	if o.Sweep != nil {
		// Sweeps wait on the forge, not on this process: more of them run at once (each
		// credential's budget bounds them).
		r.sweeps = queue("sweeps", r.sweepEntity, 4*o.Workers, workqueue.Backoff{Base: time.Second, Max: o.SweepInterval}, 0)
	}
	return r, nil
}

// Notify asks for the pools to be reconciled. It never blocks; webhooks, API writes,
// instance callbacks and the resync timer call it.
func (r *Reconciler) Notify(poolIDs ...string) {
	for _, id := range poolIDs {
		r.pools.Add(id)
	}
}

// Run reconciles until ctx is done: every pool at once (which repairs them), then on
// Notify and every ResyncInterval. It returns after the running steps have stopped, and
// gives up the pool leases it held (see releaseHeld).
func (r *Reconciler) Run(ctx context.Context) error {
	defer r.releaseHeld(context.WithoutCancel(ctx))
	began := time.Now() // the first pass begins with reading the store
	if err := r.triage(ctx, func(pools []garrison.Pool) { r.passes.start(began, pools) }); err != nil {
		return err
	}
	r.resync.AddAfter(resyncKey, r.o.ResyncInterval)
	var wg sync.WaitGroup
	for _, q := range []*workqueue.Queue{r.pools, r.instances, r.repairs, r.sweeps, r.resync} {
		if q != nil {
			wg.Go(func() { q.Run(ctx) })
		}
	}
	wg.Wait()
	return nil
}

// resyncAll is the resync controller's handler: the one timer. It triages every pool and
// schedules the repairs and sweeps that are not, every ResyncInterval.
func (r *Reconciler) resyncAll(ctx context.Context, _ string) (workqueue.Result, error) {
	if err := r.triage(ctx, nil); err != nil {
		return workqueue.Result{}, err
	}
	return workqueue.Result{RequeueAfter: r.o.ResyncInterval}, nil
}

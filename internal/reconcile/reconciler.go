package reconcile

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
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
	// Workers bounds pools reconciled at once, and repairs run at once (default 4).
	Workers int
	// InstanceWorkers bounds instance steps (provider and forge calls) run at once
	// (default 64): enough that the steps of a provider or credential waiting on its
	// budget never starve the others.
	InstanceWorkers int
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
	setDefault(&o.InstanceWorkers, 64)
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
	// The controllers, each a handler on its own queue.
	pools     *workqueue.Queue // key: pool id
	instances *workqueue.Queue // key: instance name
	// jobs caches each entity's queued jobs.
	jobs *jobCache
	// repairs bounds the three-way repairs running at once.
	repairs chan struct{}
	// passes reports the first pass over every pool after the start.
	passes *firstPass
	// listingMargin: see defaultListingMargin (tests shorten it).
	listingMargin time.Duration
	ops           sync.WaitGroup // running repairs

	mu         sync.Mutex      // guards the maps below
	repairing  map[string]bool // pool ids whose repair runs
	lastRepair map[string]time.Time
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
		o: o, log: o.Logger, lastRepair: map[string]time.Time{}, repairing: map[string]bool{},
		runnerLists: map[string]runnerList{}, unserved: map[string]map[int64]string{},
		reasons: map[string]map[string]int{}, poolFaults: map[string]error{}, groupIgnored: map[string]string{},
		jobs:    newJobCache(o.Store, o.Now, o.ResyncInterval),
		repairs: make(chan struct{}, o.Workers), passes: newFirstPass(o.Logger), listingMargin: defaultListingMargin,
	}
	r.pools = workqueue.New(r.reconcile, workqueue.Options{
		Name: "pools", Workers: o.Workers, Logger: o.Logger, Pace: o.Pace,
		Backoff: workqueue.Backoff{Base: time.Second, Max: 5 * time.Minute},
	})
	r.instances = workqueue.New(r.reconcileInstance, workqueue.Options{
		Name: "instances", Workers: o.InstanceWorkers, Logger: o.Logger,
		Backoff: workqueue.Backoff{Base: o.Policy.RetryBackoff, Max: o.Policy.MaxRetryBackoff},
	})
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
// Notify and every ResyncInterval. It returns after the running steps have stopped.
func (r *Reconciler) Run(ctx context.Context) error {
	began := time.Now() // the first pass begins with reading the store
	if err := r.triage(ctx, func(pools []garrison.Pool) { r.passes.start(began, pools) }); err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.resyncLoop(ctx) })
	wg.Go(func() { r.instances.Run(ctx) })
	r.pools.Run(ctx)
	wg.Wait()
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

// claim takes or renews this replica's lease on the pool (always held without Leases).
func (r *Reconciler) claim(ctx context.Context, poolID string) (bool, error) {
	if r.o.Leases == nil {
		return true, nil
	}
	return r.o.Leases.Lease(ctx, "pool/"+poolID, r.o.Holder, r.o.LeaseTTL)
}

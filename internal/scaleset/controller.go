package scaleset

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// Store is the part of the store the listeners use.
type Store interface {
	Controller(ctx context.Context) (garrison.Controller, error)
	Entity(ctx context.Context, id string) (garrison.Entity, error)
	ScaleSet(ctx context.Context, id uint) (garrison.ScaleSet, error)
	ListScaleSets(ctx context.Context, f store.ScaleSetFilter) ([]garrison.ScaleSet, error)
	UpdateScaleSet(ctx context.Context, id uint, fn func(*garrison.ScaleSet) error) (garrison.ScaleSet, error)
	ClaimScaleSetSession(ctx context.Context, id uint, owner string, ttl time.Duration) (garrison.ScaleSetSession, bool, error)
	SetScaleSetSessionID(ctx context.Context, id uint, owner, sessionID string) error
	ReleaseScaleSetSession(ctx context.Context, id uint, owner string) error
	RecordScaleSetMessage(ctx context.Context, id uint, owner string, messageID int64, desired int) error
	CreateInstance(ctx context.Context, i garrison.Instance) (garrison.Instance, error)
	ListInstances(ctx context.Context, f store.InstanceFilter) ([]garrison.Instance, error)
	UpdateInstance(ctx context.Context, name string, fn func(*garrison.Instance) error) (garrison.Instance, error)
	AddInstanceEvent(ctx context.Context, name string, ev garrison.Event) error
	UpsertJob(ctx context.Context, id int64, fn func(j *garrison.Job, exists bool) error) (garrison.Job, error)
}

// Options configure a Controller. Store, Services and Owner are required.
type Options struct {
	Store    Store
	Services Services
	// Owner names this replica in session claims and as the session's ownerName; unique
	// per process (the server uses garm-<controller id>-<replica id>).
	Owner string
	// ClaimTTL is how long a session claim lasts unless renewed; a dead holder's claim
	// is taken over after it (default 2 minutes; longer than a long poll).
	ClaimTTL time.Duration
	// ConflictHold is how long a listener waits after the service refused a session
	// because another is open (default 30 s, forge-api §8.2).
	ConflictHold time.Duration
	// Backoff spaces reconnects after failures (default 1 s doubling to 1 min, jittered).
	Backoff workqueue.Backoff
	// Workers bounds the listener steps running at once (default 4). A step is short: the
	// long polls run off the queue, each in its own goroutine, and hand their messages
	// back as queue keys.
	Workers int
	// Polls bounds the long polls in flight at once, one per session this replica holds
	// (default 1,000); a listener finding no free slot tries again a second later.
	Polls int
	// Forge checks, when the listener starts and after a session refused because the
	// scale set is gone, that the service still has the scale set, and recreates it if
	// not (nil: no check).
	Forge Forge
	// StrandedAfter is stranded_runner_timeout: an idle runner the service shows offline
	// (or not at all) for this long, plus up to 20%, is recycled (default 10 min).
	// StrandedPerPass caps the runners of a scale set recycled per pass (default 3).
	StrandedAfter   time.Duration
	StrandedPerPass int
	// OnInstances is told the names of instances the listener created or marked for
	// deletion, for the instance controller (nil: none).
	OnInstances func(names ...string)
	Metrics     *Metrics // nil: none
	Logger      *slog.Logger
	Now         func() time.Time
}

func (o Options) withDefaults() Options {
	if o.ClaimTTL <= 0 {
		o.ClaimTTL = 2 * time.Minute
	}
	if o.ConflictHold <= 0 {
		o.ConflictHold = 30 * time.Second
	}
	if o.Backoff.Base <= 0 {
		o.Backoff = workqueue.Backoff{Base: time.Second, Max: time.Minute}
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.StrandedAfter <= 0 {
		o.StrandedAfter = 10 * time.Minute
	}
	if o.StrandedPerPass <= 0 {
		o.StrandedPerPass = 3
	}
	if o.Polls <= 0 {
		o.Polls = 1000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OnInstances == nil {
		o.OnInstances = func(...string) {}
	}
	return o
}

// Controller runs one listener per scale set on a work queue keyed by the scale set id.
type Controller struct {
	o     Options
	queue *workqueue.Queue
	log   *slog.Logger

	pollSlots chan struct{}   // Options.Polls
	polls     sync.WaitGroup  // the long polls in flight
	runCtx    context.Context // Run's; the polls' parent (nil before Run)

	mu       sync.Mutex
	sessions map[uint]*openSession // the sessions this replica holds
	looked   map[uint]bool         // scale sets whose unfinished instances were handed out
	stranded map[uint]*strandedState
	checked  map[uint]bool // scale sets whose existence on the service was checked
}

// firstLook reports whether this is the process's first look at the scale set's
// instances, and records that it happened.
func (c *Controller) firstLook(id uint) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.looked[id] {
		return false
	}
	c.looked[id] = true
	return true
}

// New returns a controller; Run starts it.
func New(o Options) *Controller {
	o = o.withDefaults()
	c := &Controller{o: o, log: o.Logger, sessions: map[uint]*openSession{}, looked: map[uint]bool{},
		stranded: map[uint]*strandedState{}, checked: map[uint]bool{},
		pollSlots: make(chan struct{}, o.Polls)}
	c.queue = workqueue.New(c.handle, workqueue.Options{Name: "scalesets", Workers: o.Workers,
		Backoff: o.Backoff, Logger: o.Logger, Metrics: nil})
	return c
}

// Notify asks the listeners of the given scale sets to look again (after an API write).
func (c *Controller) Notify(ids ...uint) {
	for _, id := range ids {
		c.queue.Add(strconv.FormatUint(uint64(id), 10))
	}
}

// Run starts every scale set's listener and runs until ctx is done; it then closes the
// sessions it holds and gives up their claims.
func (c *Controller) Run(ctx context.Context) error {
	sets, err := c.o.Store.ListScaleSets(ctx, store.ScaleSetFilter{})
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.runCtx = ctx
	c.mu.Unlock()
	for _, ss := range sets {
		c.Notify(ss.ID)
	}
	c.queue.Run(ctx)
	c.polls.Wait() // ctx is done: so are the polls
	c.closeAll()
	return nil
}

// Step runs the listener of one scale set once, long poll included, in the caller's
// goroutine (for tests and tools).
func (c *Controller) Step(ctx context.Context, id uint) (workqueue.Result, error) {
	return c.step(ctx, strconv.FormatUint(uint64(id), 10), true)
}

// closeAll closes every session this replica holds and releases the claims.
func (c *Controller) closeAll() {
	c.mu.Lock()
	ids := make([]uint, 0, len(c.sessions))
	for id := range c.sessions {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, id := range ids {
		c.closeSession(ctx, id)
	}
}

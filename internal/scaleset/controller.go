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
	// Workers bounds the listeners running at once; each holds a worker during its long
	// poll (default 64).
	Workers int
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
		o.Workers = 64
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

	mu       sync.Mutex
	sessions map[uint]*openSession // the sessions this replica holds
	looked   map[uint]bool         // scale sets whose unfinished instances were handed out
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

// openSession is a session this replica opened and the service that serves it.
type openSession struct {
	svc       Service
	session   Session
	forgeID   int
	renewedAt time.Time // when the claim was last written (guarded by Controller.mu)
	token     int64     // the claim's fencing token (guarded by Controller.mu)
}

// New returns a controller; Run starts it.
func New(o Options) *Controller {
	o = o.withDefaults()
	c := &Controller{o: o, log: o.Logger, sessions: map[uint]*openSession{}, looked: map[uint]bool{}}
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
	for _, ss := range sets {
		c.Notify(ss.ID)
	}
	c.queue.Run(ctx)
	c.closeAll()
	return nil
}

// Step runs the listener of one scale set once, in the caller's goroutine (for tests
// and tools).
func (c *Controller) Step(ctx context.Context, id uint) (workqueue.Result, error) {
	return c.handle(ctx, strconv.FormatUint(uint64(id), 10))
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

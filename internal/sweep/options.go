package sweep

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Forge is what the sweep needs from the forge client of one entity's credentials.
type Forge interface {
	// QueuedJobs lists the entity's jobs waiting for a runner (Action queued). For
	// organizations and enterprises on GitHub the implementation iterates repositories.
	QueuedJobs(ctx context.Context, e garrison.Entity) ([]garrison.Job, error)
	// Budget reports the credential's last known core API budget; limit 0 means unknown
	// or unlimited.
	Budget() (remaining, limit int, reset time.Time)
}

// Delivery is one webhook delivery attempt as the forge lists it.
type Delivery = garrison.HookDelivery

// Redeliverer is implemented by forges with a hook delivery API (GitHub).
type Redeliverer interface {
	// InstalledHook returns the id of the webhook garrison installed on the entity;
	// garrison.ErrNotFound when there is none (then nothing is redelivered).
	InstalledHook(ctx context.Context, e garrison.Entity) (int64, error)
	// ListHookDeliveries lists the hook's deliveries back to since, newest first.
	ListHookDeliveries(ctx context.Context, e garrison.Entity, hookID int64, since time.Time) ([]Delivery, error)
	// Redeliver asks the forge to send a delivery again.
	Redeliver(ctx context.Context, e garrison.Entity, hookID, deliveryID int64) error
}

// Store is the part of the store the sweep uses. store.Store satisfies it.
type Store interface {
	ListEntities(ctx context.Context, f store.EntityFilter) ([]garrison.Entity, error)
	ListPools(ctx context.Context, f store.PoolFilter) ([]garrison.Pool, error)
	Job(ctx context.Context, id int64) (garrison.Job, error)
	UpsertJob(ctx context.Context, id int64, fn func(j *garrison.Job, exists bool) error) (garrison.Job, error)
}

// Defaults of Options.
const (
	DefaultBudgetShare = 0.1
	DefaultLowBudget   = 0.2
	DefaultLookback    = 24 * time.Hour
	DefaultRedeliver   = 50
	DefaultHookRecheck = time.Hour
)

// Options configure a Sweeper. Store and Forges are required.
type Options struct {
	Store Store
	// Forges returns the forge client for an entity's credentials (the same value for
	// every entity of one credential, so budgets are shared).
	Forges func(ctx context.Context, e garrison.Entity) (Forge, error)
	// Notify enqueues pool keys (nil: nothing is enqueued). It must not block.
	Notify func(poolIDs ...string)
	Logger *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// BudgetShare is the most of a credential's budget one window's sweeps may spend
	// (0: DefaultBudgetShare); LowBudget the fraction of the limit under which sweeps stop
	// until the window resets (0: DefaultLowBudget).
	BudgetShare float64
	LowBudget   float64
	// Lookback bounds how far back the first delivery listing of an entity goes
	// (0: DefaultLookback); MaxRedeliveries bounds redeliveries per entity and sweep
	// (0: DefaultRedeliver).
	Lookback        time.Duration
	MaxRedeliveries int
	// HookRecheck is how long a lookup that found no garrison webhook on an entity is
	// trusted before the entity's hooks are listed again (0: DefaultHookRecheck). A found
	// webhook is remembered until the forge says it is gone.
	HookRecheck time.Duration
	// LogEvery is the least time between two logs of the same kind (0: one minute).
	LogEvery time.Duration
}

var errOptions = errors.New("sweep: Options.Store and Options.Forges are required")

func (o Options) withDefaults() (Options, error) {
	if o.Store == nil || o.Forges == nil {
		return o, errOptions
	}
	if o.Notify == nil {
		o.Notify = func(...string) {}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Lookback = cmpOr(o.Lookback, DefaultLookback)
	o.LogEvery = cmpOr(o.LogEvery, time.Minute)
	o.BudgetShare = cmpOr(o.BudgetShare, DefaultBudgetShare)
	o.LowBudget = cmpOr(o.LowBudget, DefaultLowBudget)
	o.MaxRedeliveries = cmpOr(o.MaxRedeliveries, DefaultRedeliver)
	o.HookRecheck = cmpOr(o.HookRecheck, DefaultHookRecheck)
	return o, nil
}

func cmpOr[T int | float64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

package intake

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// EndpointLister finds the endpoints a delivery may come from.
type EndpointLister interface {
	ListEndpoints(ctx context.Context, t garrison.ForgeType) ([]garrison.Endpoint, error)
}

// EntityLister finds the entity a delivery is for.
type EntityLister interface {
	ListEntities(ctx context.Context, f store.EntityFilter) ([]garrison.Entity, error)
}

// PoolLister finds the pools that can serve a job.
type PoolLister interface {
	ListPools(ctx context.Context, f store.PoolFilter) ([]garrison.Pool, error)
}

// InstanceStore reads the instance a job's runner runs in.
type InstanceStore interface {
	Instance(ctx context.Context, name string) (garrison.Instance, error)
}

// JobLedger is the durable job ledger; RecordJob also updates the runner's instance.
type JobLedger interface {
	RecordJob(ctx context.Context, r store.JobRecord) (garrison.Job, *garrison.Instance, error)
	DeleteJob(ctx context.Context, id int64) error
}

// Store is every part of the store the receiver uses. store.Store satisfies it.
type Store interface {
	EndpointLister
	EntityLister
	PoolLister
	InstanceStore
	JobLedger
	ScaleSetReader
}

// ScaleSetReader reads a scale set: a scale set's runner is the entity's when the scale
// set is.
type ScaleSetReader interface {
	ScaleSet(ctx context.Context, id uint) (garrison.ScaleSet, error)
	ListScaleSets(ctx context.Context, f store.ScaleSetFilter) ([]garrison.ScaleSet, error)
}

// Defaults of Options.
const (
	DefaultMaxBodyBytes  = 1 << 20
	DefaultDeliveryCache = 8192
	DefaultLogEvery      = time.Minute
	DefaultCacheTTL      = time.Second
)

// Options configure a Handler. Store and ControllerID are required.
type Options struct {
	Store Store
	// ControllerID returns this controller's id, compared with the one in the path (W-2).
	ControllerID func(ctx context.Context) (string, error)
	// Logger receives the rate-limited logs (nil: discarded).
	Logger *slog.Logger
	// Registerer receives the metrics (nil: none registered).
	Registerer prometheus.Registerer
	// Notify enqueues pool keys for the reconciler (nil: nothing is enqueued). It must not
	// block.
	Notify func(poolIDs ...string)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// MaxBodyBytes caps the body (0: DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// DeliveryCache is how many delivery ids are remembered (0: DefaultDeliveryCache).
	DeliveryCache int
	// LogEvery is the least time between two logs of the same result (0: DefaultLogEvery).
	LogEvery time.Duration
	// CacheTTL is how long the controller id, endpoints, entities and pools read for a
	// delivery are reused by later ones (0 or negative: not at all, every delivery reads
	// them; DefaultCacheTTL is the server's choice). Cached data only ever accepts a
	// delivery: each refusal is decided on a fresh read.
	CacheTTL time.Duration
}

// errOptions reports a missing required option.
var errOptions = errors.New("intake: Options.Store and Options.ControllerID are required")

func (o Options) withDefaults() (Options, error) {
	if o.Store == nil || o.ControllerID == nil {
		return o, errOptions
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Notify == nil {
		o.Notify = func(...string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.DeliveryCache <= 0 {
		o.DeliveryCache = DefaultDeliveryCache
	}
	if o.LogEvery <= 0 {
		o.LogEvery = DefaultLogEvery
	}
	return o, nil
}

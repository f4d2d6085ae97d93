package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/events"
	"github.com/garrison-ci/garrison/internal/logstream"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/prometheus/client_golang/prometheus"
)

// InstanceStore is the part of the instance store the API uses.
type InstanceStore interface {
	Instance(ctx context.Context, name string) (garrison.Instance, error)
	ListInstances(ctx context.Context, f store.InstanceFilter) ([]garrison.Instance, error)
	UpdateInstance(ctx context.Context, name string, fn func(*garrison.Instance) error) (garrison.Instance, error)
	// DeleteInstance removes a history record (a retired runner).
	DeleteInstance(ctx context.Context, name string) error
}

// JobStore is the part of the job store the API uses.
type JobStore interface {
	Job(ctx context.Context, id int64) (garrison.Job, error)
	ListJobs(ctx context.Context, f store.JobFilter) ([]garrison.Job, error)
}

// Store is everything the REST API reads and writes. store.Store satisfies it.
type Store interface {
	store.Controllers
	store.Users
	store.Endpoints
	store.Credentials
	store.Entities
	store.Pools
	store.Templates
	store.Proxies
	store.Objects
	store.ScaleSets
	InstanceStore
	JobStore
	Ping(ctx context.Context) error
}

// Provider is a configured provider as GET /providers lists it.
type Provider interface {
	Name() string
	Type() string // "external"
	Description() string
}

// VersionedProvider is a Provider that also knows its version and the interface versions
// it supports. Both methods MUST return cached values without blocking.
type VersionedProvider interface {
	Provider
	Version() string
	InterfaceVersions() []string
}

// WebhookRequest says which hook to install, show or remove on an entity's forge object.
type WebhookRequest struct {
	URL          string // the controller webhook URL (webhook_url + "/" + controller id)
	BaseURL      string // the bare webhook_url, to recognise hooks installed by hand
	ControllerID string // to recognise another hook of this controller (WH-2)
	InsecureSSL  bool
}

// Forge performs the few forge calls the REST API makes synchronously. Errors are
// *garrison.Error values: ErrNotFound (no such hook or runner), ErrConflict (hook exists),
// ErrInvalid (refused, with a message), ErrUnauthorized (the forge refused the
// credentials); anything else is a 500. Implementations bound their own time.
type Forge interface {
	InstallWebhook(ctx context.Context, e garrison.Entity, req WebhookRequest) (apiv1.HookInfo, error)
	WebhookInfo(ctx context.Context, e garrison.Entity, req WebhookRequest) (apiv1.HookInfo, error)
	UninstallWebhook(ctx context.Context, e garrison.Entity, req WebhookRequest) error
	// RemoveRunner deletes the forge runner with the given id registered for e.
	RemoveRunner(ctx context.Context, e garrison.Entity, agentID int64) error
}

// ScaleSetForge makes the Actions-service calls the scale-set routes make synchronously
// (rest-api-2 §2.3-2.5, SS-16). Errors are classified as for Forge; DeleteScaleSet and
// RemoveRunner answer ErrNotFound when the forge has no such object. Implementations
// bound their own time.
type ScaleSetForge interface {
	// CreateScaleSet creates the scale set on the forge and returns the forge's id.
	CreateScaleSet(ctx context.Context, e garrison.Entity, s garrison.ScaleSet) (int, error)
	// UpdateScaleSet sends the scale set's name, runner group and disable_update.
	UpdateScaleSet(ctx context.Context, e garrison.Entity, s garrison.ScaleSet) error
	DeleteScaleSet(ctx context.Context, e garrison.Entity, s garrison.ScaleSet) error
	// RemoveRunner removes a scale-set runner through the agents API.
	RemoveRunner(ctx context.Context, e garrison.Entity, s garrison.ScaleSet, agentID int64) error
}

// PoolManagers reports and records the state of each entity's pool management. Methods
// MUST NOT block.
type PoolManagers interface {
	Status(entityID string) (running bool, failureReason string)
	SetFailed(entityID, reason string)
	// PoolHealth reports a pool's state (apiv1.PoolHealthy, PoolDegraded, PoolStopped)
	// and why.
	PoolHealth(p garrison.Pool) (state, reason string)
}

// Cluster shows the replicas sharing the database and the claims they hold (GET
// /replicas and /claims).
type Cluster interface {
	// Replicas lists the replicas; self names the one answering.
	Replicas(ctx context.Context) (replicas []garrison.Replica, self string, err error)
	Claims(ctx context.Context) ([]garrison.Claim, error)
	// LeaseTTL is how long claims last: a replica silent for longer is not alive.
	LeaseTTL() time.Duration
}

// RateLimits reports the last observed forge rate limit of GitHub credentials, without
// blocking.
type RateLimits interface {
	RateLimit(credentialsID uint) (garrison.RateLimit, bool)
}

// Options configure a Server. Store and JWTSecret are required.
type Options struct {
	Store Store
	// ObjectsDir is where the object routes spool uploads and keep this replica's copies
	// of objects (one file per object, named by ID; the content is in the store); ""
	// leaves the /objects routes unmounted (404).
	ObjectsDir string
	// MaxObjectSize is the largest object upload in bytes (413 beyond); 0 means
	// DefaultMaxObjectSize.
	MaxObjectSize int64
	JWTSecret     []byte
	// TokenTTL is the lifetime of admin and metrics tokens (raised to 24h at least).
	TokenTTL time.Duration
	Logger   *slog.Logger // nil discards
	// AccessLogLevel is the level of each request's access_log record (zero: INFO, as GARM).
	AccessLogLevel slog.Level
	Version        string
	Hostname       string
	// Providers are the configured providers, in the order GET /providers lists them.
	Providers []Provider
	// CORSOrigins are the allowed browser origins; "*" allows any.
	CORSOrigins []string
	// EnableWebhookManagement mounts the webhook install/show/uninstall routes (needs Forge).
	EnableWebhookManagement bool

	// Metrics serves GET /metrics (nil: 404). Unless MetricsAuthDisabled, a metrics token
	// or an admin token is required.
	Metrics             http.Handler
	MetricsAuthDisabled bool
	// Registerer receives the HTTP request metrics (nil: none).
	Registerer prometheus.Registerer

	// LoginLimit configures the per-client limiter of login attempts (zero: defaults).
	LoginLimit auth.LimiterConfig
	// DisableLoginLimit turns the login limiter off.
	DisableLoginLimit bool
	// MaxPasswordChecks bounds how many login passwords are checked at once, whatever
	// the client (0: auth.DefaultPasswordChecks).
	MaxPasswordChecks int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For header names the
	// client. The header is ignored unless the request comes from one of them.
	TrustedProxies []netip.Prefix

	// Seams for other parts of garrison; each may be nil.
	Webhooks  http.Handler // /webhooks, /webhooks/, /webhooks/{controllerID}
	Instances http.Handler // /api/v1/metadata/..., /api/v1/callbacks/...
	// RunnerTools serves /api/v1/metadata/runner-tools/... without a token: the cached
	// runner archives (nil: those paths go to Instances).
	RunnerTools  http.Handler
	Notify       func(poolIDs ...string) // after API writes that affect pools
	Forge        Forge
	PoolManagers PoolManagers
	// Cluster serves GET /replicas and /claims (nil: 404).
	Cluster Cluster
	// ScaleSetForge makes the scale-set routes' forge calls (nil: none; a new scale set
	// is then only stored, in state pending_create, for its listener to create).
	ScaleSetForge ScaleSetForge
	// NotifyScaleSet is called after API writes that affect a scale set (nil: none).
	NotifyScaleSet func(id uint)
	// Events feeds GET /api/v1/ws/events (nil: the route answers 404).
	Events *events.Hub
	// Logs feeds GET /api/v1/ws/logs and /api/v1/ws (nil: the log streamer is disabled,
	// and those routes answer 400 "log streamer is disabled").
	Logs *logstream.Hub
	// MetricsInterval is how often GET /api/v1/ws/metrics sends a snapshot (0: 5 s).
	MetricsInterval time.Duration
	// RotateOutdated marks a pool's idle runners of an older pool generation for
	// replacement and returns how many (POST /pools/{poolID}/runners/rotate; nil: 404).
	RotateOutdated func(ctx context.Context, poolID string) (int, error)
	// Debug serves /debug/pprof/... to the admin only (nil: 404).
	Debug      http.Handler
	RateLimits RateLimits
	// UI serves the web UI: "/", "/ui" and everything under "/ui/" (nil: 404). Its files
	// are public; the data they show needs the admin token.
	UI http.Handler

	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

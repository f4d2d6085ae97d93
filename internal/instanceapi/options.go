package instanceapi

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/provider"
)

// Store is the part of the store the instance API uses. store.Store satisfies it.
type Store interface {
	Controller(ctx context.Context) (garrison.Controller, error)
	Endpoint(ctx context.Context, name string) (garrison.Endpoint, error)
	Entity(ctx context.Context, id string) (garrison.Entity, error)
	Pool(ctx context.Context, id string) (garrison.Pool, error)
	ScaleSet(ctx context.Context, id uint) (garrison.ScaleSet, error)
	Instance(ctx context.Context, name string) (garrison.Instance, error)
	// UpdateInstance runs fn on the instance read under a row lock; an fn error aborts.
	UpdateInstance(ctx context.Context, name string, fn func(*garrison.Instance) error) (garrison.Instance, error)
	AddInstanceEvent(ctx context.Context, name string, ev garrison.Event) error
	// Template returns a runner install template by id (a pool's TemplateID).
	Template(ctx context.Context, id uint) (garrison.Template, error)
}

// Forge is the forge access the instance API needs, for the entity an instance serves.
type Forge interface {
	// RegistrationToken returns a fresh runner registration token for e.
	RegistrationToken(ctx context.Context, e garrison.Entity) (string, error)
	// RunnerDownloads lists the runner downloads (all OS/arch) for e.
	RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error)
}

// TokenVerifier checks instance tokens; *auth.Tokens satisfies it. It must check the
// signature (HMAC only), the expiry against its clock, and refuse agent tokens.
type TokenVerifier interface {
	VerifyInstance(token string) (*auth.InstanceClaims, error)
}

// ProxyFunc returns the proxy settings of a pool; nil means no pool has a proxy.
type ProxyFunc func(ctx context.Context, p garrison.Pool) (provider.ProxyConfig, error)

// Options configure a Handler. Store, Forge and Tokens are required.
type Options struct {
	Store  Store
	Forge  Forge
	Tokens TokenVerifier
	// Notify is called with the pool id after an instance's runner status changed, so the
	// pool gets reconciled. Nil: nobody is told.
	Notify func(poolIDs ...string)
	// Proxy returns a pool's proxy (nil: no pool has one).
	Proxy ProxyFunc
	// Log receives request failures (nil: slog.Default()).
	Log *slog.Logger
	// Now is the clock for event timestamps (nil: time.Now). Token expiry uses the
	// TokenVerifier's own clock.
	Now func() time.Time
}

// errMissingOption is returned by New when a required option is nil.
var errMissingOption = errors.New("instanceapi: Store, Forge and Tokens are required")

package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/provider"
)

// Store is the part of store.Store the reconciler uses.
type Store interface {
	Controller(ctx context.Context) (garrison.Controller, error)
	Endpoint(ctx context.Context, name string) (garrison.Endpoint, error)
	Entity(ctx context.Context, id string) (garrison.Entity, error)
	ListEntities(ctx context.Context, f store.EntityFilter) ([]garrison.Entity, error)
	Pool(ctx context.Context, id string) (garrison.Pool, error)
	ListPools(ctx context.Context, f store.PoolFilter) ([]garrison.Pool, error)
	ScaleSet(ctx context.Context, id uint) (garrison.ScaleSet, error)
	ListScaleSets(ctx context.Context, f store.ScaleSetFilter) ([]garrison.ScaleSet, error)
	CreateInstance(ctx context.Context, i garrison.Instance) (garrison.Instance, error)
	Instance(ctx context.Context, name string) (garrison.Instance, error)
	ListInstances(ctx context.Context, f store.InstanceFilter) ([]garrison.Instance, error)
	UpdateInstance(ctx context.Context, name string, fn func(*garrison.Instance) error) (garrison.Instance, error)
	DeleteInstance(ctx context.Context, name string) error
	AddInstanceEvent(ctx context.Context, name string, ev garrison.Event) error
	UpsertJob(ctx context.Context, id int64, fn func(j *garrison.Job, exists bool) error) (garrison.Job, error)
	ListJobs(ctx context.Context, f store.JobFilter) ([]garrison.Job, error)
	DeleteJob(ctx context.Context, id int64) error
}

// Provider is the part of the provider contract the reconciler calls (the host side of
// the contract, internal/providerexec, implements it).
type Provider interface {
	CreateInstance(ctx context.Context, bi provider.BootstrapInstance, poolExtraSpecs json.RawMessage) (provider.ProviderInstance, error)
	DeleteInstance(ctx context.Context, t provider.Target) error
	ListInstances(ctx context.Context, t provider.Target) ([]provider.ProviderInstance, error)
}

// Providers finds the provider a pool names.
type Providers interface {
	// Provider returns the provider and its settings; an error wrapping
	// garrison.ErrNotFound when no provider has that name.
	Provider(name string) (Provider, ProviderSettings, error)
}

// ProviderSettings are the manager-side settings of a provider.
type ProviderSettings struct {
	// DisableJIT is disable_jit_config: runners register with a registration token.
	DisableJIT bool
}

// ProviderEntry is one provider of a ProviderMap.
type ProviderEntry struct {
	Provider Provider
	ProviderSettings
}

// ProviderMap is a Providers keyed by provider name.
type ProviderMap map[string]ProviderEntry

// Provider implements Providers.
func (m ProviderMap) Provider(name string) (Provider, ProviderSettings, error) {
	e, ok := m[name]
	if !ok {
		return nil, ProviderSettings{}, fmt.Errorf("provider %q: %w", name, garrison.ErrNotFound)
	}
	return e.Provider, e.ProviderSettings, nil
}

// Forge is what the reconciler asks of the forge, for one entity. Errors wrap
// garrison.Error codes: ErrNotFound for a missing runner, ErrConflict for a taken name,
// garrison.ErrJITUnsupported from a forge without JIT configurations; a
// *garrison.RateLimitError says when the credentials may call again.
type Forge interface {
	CreateJITConfig(ctx context.Context, e garrison.Entity, req garrison.JITRequest) (garrison.JITConfig, error)
	RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error)
	ListRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error)
	DeleteRunner(ctx context.Context, e garrison.Entity, id int64) error
}

// Forges returns the forge client serving an entity (by its endpoint and credentials).
type Forges interface {
	Forge(ctx context.Context, e garrison.Entity) (Forge, error)
}

// TokenMinter mints the token of an instance, valid for its bootstrap timeout and a
// grace period (internal/auth implements it).
type TokenMinter interface {
	MintInstance(id garrison.InstanceIdentity, bootstrapTimeout time.Duration) (string, error)
}

// TemplateParams is what the bootstrap wrapper embeds (the fields of
// bootstrap.WrapperParams).
type TemplateParams struct {
	MetadataURL, CallbackURL, InstanceToken string
	HTTPProxy, HTTPSProxy, NoProxy          string
	CACertBundle                            []byte
}

// InjectTemplateFunc adds the bootstrap wrapper to a pool's extra specs as
// runner_install_template (provider-contract §10, X-2).
type InjectTemplateFunc func(extraSpecs json.RawMessage, osType string, p TemplateParams) (json.RawMessage, error)

// Leases claims work that must happen once across replicas. Lease acquires or renews
// the named lease for holder until ttl from now and reports whether holder has it, with
// the fence its writes under the lease carry (store.WithFence). ReleaseLease gives a
// lease up early (when the reconciler stops).
type Leases interface {
	Lease(ctx context.Context, name, holder string, ttl time.Duration) (store.Fence, bool, error)
	ReleaseLease(ctx context.Context, name, holder string) error
}

// Policy holds the reconciler's own knobs (see plan.Policy).
type Policy = plan.Policy

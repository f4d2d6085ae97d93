package simprovider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
)

// Version is reported by GetVersion.
const Version = "v0.1.0"

// ErrSimulatedFailure is returned by a CreateInstance chosen to fail.
var ErrSimulatedFailure = errors.New("simulated create failure")

// Provider is the sim provider for one invocation.
type Provider struct {
	cfg        Config
	controller string
	poolSpecs  json.RawMessage
	store      *store
}

var (
	_ sdk.Provider                 = (*Provider)(nil)
	_ sdk.Versioner                = (*Provider)(nil)
	_ sdk.PoolValidator            = (*Provider)(nil)
	_ sdk.ExtraSpecsSchemaProvider = (*Provider)(nil)
)

// New is the sdk.Factory: it loads the config file named by the
// environment and opens the state directory.
func New(_ context.Context, env sdk.Environment) (sdk.Provider, error) {
	cfg, err := LoadConfig(env.ConfigFile)
	if err != nil {
		return nil, err
	}
	return NewWithConfig(cfg, env)
}

// NewWithConfig builds a Provider from an already loaded config.
func NewWithConfig(cfg Config, env sdk.Environment) (*Provider, error) {
	s, err := open(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	return &Provider{cfg: cfg, controller: env.ControllerID, poolSpecs: env.PoolExtraSpecs, store: s}, nil
}

// CreateInstance waits the boot delay (or forever with hang), may fail at
// random, then stores a running record.
func (p *Provider) CreateInstance(ctx context.Context, bi provider.BootstrapInstance) (provider.ProviderInstance, error) {
	specs := bi.ExtraSpecs
	if len(specs) == 0 {
		specs = p.poolSpecs
	}
	b, err := p.cfg.Behaviour.withExtraSpecs(specs)
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	id := idPrefix + bi.Name
	if !safeName.MatchString(id) {
		return provider.ProviderInstance{}, fmt.Errorf("instance name %q is not usable by the sim provider", bi.Name)
	}
	if err := simulate(ctx, b); err != nil {
		return provider.ProviderInstance{}, err
	}
	r := Record{ProviderID: id, Name: bi.Name, ControllerID: p.controller, PoolID: bi.PoolID,
		Status: provider.StatusRunning, CreatedAt: time.Now().UTC(), Bootstrap: bi}
	err = p.store.withLock(func() error {
		if _, err := os.Lstat(p.store.path(id)); err == nil {
			return fmt.Errorf("instance %q: %w", bi.Name, sdk.ErrDuplicate)
		}
		return p.store.write(r)
	})
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	return r.Instance(), nil
}

// simulate applies hang, boot delay and failure rate.
func simulate(ctx context.Context, b Behaviour) error {
	if b.Hang {
		<-ctx.Done()
		return ctx.Err()
	}
	if b.BootDelay.Duration > 0 {
		t := time.NewTimer(b.BootDelay.Duration)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	if b.FailureRate > 0 && rand.Float64() < b.FailureRate {
		return ErrSimulatedFailure
	}
	return nil
}

// DeleteInstance removes a record; sdk.ErrNotFound if absent.
func (p *Provider) DeleteInstance(_ context.Context, instance string) error {
	return p.store.withLock(func() error {
		r, err := p.store.find(p.controller, instance)
		if err != nil {
			return err
		}
		return os.Remove(p.store.path(r.ProviderID))
	})
}

// GetInstance returns one record.
func (p *Provider) GetInstance(_ context.Context, instance string) (provider.ProviderInstance, error) {
	r, err := p.store.find(p.controller, instance)
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	return r.Instance(), nil
}

// ListInstances returns this controller's records of poolID.
func (p *Provider) ListInstances(_ context.Context, poolID string) ([]provider.ProviderInstance, error) {
	recs, err := p.store.all(p.controller, poolID)
	if err != nil {
		return nil, err
	}
	out := make([]provider.ProviderInstance, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Instance())
	}
	return out, nil
}

// RemoveAllInstances removes every record of this controller.
func (p *Provider) RemoveAllInstances(context.Context) error {
	return p.store.withLock(func() error {
		recs, err := p.store.all(p.controller, "")
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := os.Remove(p.store.path(r.ProviderID)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return nil
	})
}

// Start marks an instance running.
func (p *Provider) Start(_ context.Context, instance string) error {
	return p.setStatus(instance, provider.StatusRunning)
}

// Stop marks an instance stopped.
func (p *Provider) Stop(_ context.Context, instance string) error {
	return p.setStatus(instance, provider.StatusStopped)
}

// setStatus rewrites a record's status under the lock.
func (p *Provider) setStatus(instance string, st provider.Status) error {
	return p.store.withLock(func() error {
		r, err := p.store.find(p.controller, instance)
		if err != nil {
			return err
		}
		r.Status = st
		return p.store.write(r)
	})
}

// Version implements sdk.Versioner.
func (p *Provider) Version(context.Context) string { return Version }

// ValidatePoolInfo checks the sim keys of a pool's extra specs.
func (p *Provider) ValidatePoolInfo(_ context.Context, _, _ string, extraSpecs json.RawMessage) error {
	_, err := p.cfg.Behaviour.withExtraSpecs(extraSpecs)
	return err
}

// ExtraSpecsJSONSchema describes the sim keys of extra specs.
func (p *Provider) ExtraSpecsJSONSchema(context.Context) (json.RawMessage, error) {
	return json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",` +
		`"properties":{"boot_delay":{"type":"string"},"failure_rate":{"type":"number","minimum":0,"maximum":1},` +
		`"hang":{"type":"boolean"}}}`), nil
}

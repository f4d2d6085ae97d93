package simprovider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	cfg.Boot = cfg.Boot.withDefaults()
	if err := cfg.Boot.validate(); err != nil {
		return nil, err
	}
	s, err := open(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	return &Provider{cfg: cfg, controller: env.ControllerID, poolSpecs: env.PoolExtraSpecs, store: s}, nil
}

// CreateInstance waits the boot delay (or forever with hang), may fail at
// random, then stores a running record. With boot = "script" it also renders
// the pool's runner install template and starts it (see package doc).
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
	if !safeName(id) {
		return provider.ProviderInstance{}, fmt.Errorf("instance name %q is not usable by the sim provider", bi.Name)
	}
	var script []byte
	if p.cfg.Boot.Mode == BootScript {
		if script, err = renderInstall(bi); err != nil {
			return provider.ProviderInstance{}, err
		}
	}
	if err := simulate(ctx, b); err != nil {
		return provider.ProviderInstance{}, err
	}
	r := Record{ProviderID: id, Name: bi.Name + b.RenameSuffix, ControllerID: p.controller, PoolID: bi.PoolID,
		Status: provider.StatusRunning, CreatedAt: time.Now().UTC(), Bootstrap: bi}
	err = p.store.withLock(func() error { return p.createLocked(ctx, &r, script) })
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	return r.Instance(), nil
}

// createLocked stores r, first booting script when it is not nil. The state lock must
// be held.
func (p *Provider) createLocked(ctx context.Context, r *Record, script []byte) error {
	if _, err := os.Lstat(p.store.path(r.ProviderID)); err == nil {
		return fmt.Errorf("instance %q: %w", r.Name, sdk.ErrDuplicate)
	}
	if script != nil {
		st, err := startBoot(p.cfg.Boot, p.store.bootDir(r.ProviderID), r.ProviderID, script)
		r.Boot = &st
		if err != nil {
			_ = p.store.teardown(ctx, *r)
			return err
		}
	}
	if err := p.store.create(*r); err != nil {
		_ = p.store.teardown(ctx, *r)
		return err
	}
	return nil
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

// DeleteInstance stops an instance's boot processes, removes its directory and
// its record; sdk.ErrNotFound if absent.
func (p *Provider) DeleteInstance(ctx context.Context, instance string) error {
	r, err := p.store.find(p.controller, instance)
	if err != nil {
		return err
	}
	return p.remove(ctx, r)
}

// remove tears r down (outside the lock: it may wait for processes), then
// removes its record and index marker under the lock; sdk.ErrNotFound if the
// record is already gone.
func (p *Provider) remove(ctx context.Context, r Record) error {
	if err := p.store.teardown(ctx, r); err != nil {
		return err
	}
	return p.store.withLock(func() error { return p.store.removeLocked(r) })
}

// GetInstance returns one record. The status stays running while the record
// exists; whether its boot processes still run is only logged to stderr.
func (p *Provider) GetInstance(_ context.Context, instance string) (provider.ProviderInstance, error) {
	r, err := p.store.find(p.controller, instance)
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	if r.Boot != nil && !groupAlive(r.Boot.PGID, r.ProviderID) {
		fmt.Fprintf(os.Stderr, "sim: instance %s: boot process group %d has exited (see %s)\n",
			r.Name, r.Boot.PGID, filepath.Join(p.store.bootDir(r.ProviderID), logName))
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

// RemoveAllInstances removes every instance of this controller.
func (p *Provider) RemoveAllInstances(ctx context.Context) error {
	recs, err := p.store.all(p.controller, "")
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range recs {
		if err := p.remove(ctx, r); err != nil && !errors.Is(err, sdk.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
		`"hang":{"type":"boolean"},"rename_suffix":{"type":"string"}}}`), nil
}

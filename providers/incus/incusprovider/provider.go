package incusprovider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lxc/incus/v6/shared/api"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
)

// Version is reported by GetVersion.
const Version = "v0.1.0"

// Config keys tagging every instance (provider-contract.md L-1).
const (
	KeyControllerID = "user.runner.controller-id"
	KeyPoolID       = "user.runner.pool-id"
)

// Provider is the Incus provider for one invocation.
type Provider struct {
	cfg        Config
	srv        Server
	controller string
}

var (
	_ sdk.Provider                 = (*Provider)(nil)
	_ sdk.Versioner                = (*Provider)(nil)
	_ sdk.PoolValidator            = (*Provider)(nil)
	_ sdk.ConfigSchemaProvider     = (*Provider)(nil)
	_ sdk.ExtraSpecsSchemaProvider = (*Provider)(nil)
)

// New is the sdk.Factory: it loads the config and connects to the server.
func New(ctx context.Context, env sdk.Environment) (sdk.Provider, error) {
	cfg, err := LoadConfig(env.ConfigFile)
	if err != nil {
		return nil, err
	}
	srv, err := Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return NewWithServer(cfg, srv, env.ControllerID), nil
}

// NewWithServer builds a Provider on an open server connection.
func NewWithServer(cfg Config, srv Server, controllerID string) *Provider {
	return &Provider{cfg: cfg, srv: srv, controller: controllerID}
}

// CreateInstance creates and starts the instance; a half-created instance
// is deleted again before the error is returned.
func (p *Provider) CreateInstance(ctx context.Context, bi provider.BootstrapInstance) (provider.ProviderInstance, error) {
	if _, err := p.srv.Instance(ctx, bi.Name); err == nil {
		return provider.ProviderInstance{}, fmt.Errorf("instance %q: %w", bi.Name, sdk.ErrDuplicate)
	} else if !errors.Is(err, sdk.ErrNotFound) {
		return provider.ProviderInstance{}, err
	}
	req, err := p.createRequest(ctx, bi)
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	if err := p.srv.Create(ctx, req); err != nil {
		_ = p.forceDelete(context.WithoutCancel(ctx), bi.Name)
		return provider.ProviderInstance{}, err
	}
	return p.GetInstance(ctx, bi.Name)
}

// DeleteInstance stops (forcefully) and deletes an instance of this
// controller; sdk.ErrNotFound if there is none by that name.
func (p *Provider) DeleteInstance(ctx context.Context, instance string) error {
	if _, err := p.own(ctx, instance); err != nil {
		return err
	}
	return p.forceDelete(ctx, instance)
}

// forceDelete stops the instance if it runs and deletes it.
func (p *Provider) forceDelete(ctx context.Context, name string) error {
	err := p.srv.SetState(ctx, name, api.InstanceStatePut{Action: "stop", Force: true, Timeout: -1})
	if errors.Is(err, sdk.ErrNotFound) {
		return err
	}
	// A stop error (e.g. already stopped) is reported by Delete if it matters.
	return p.srv.Delete(ctx, name)
}

// GetInstance returns one instance of this controller.
func (p *Provider) GetInstance(ctx context.Context, instance string) (provider.ProviderInstance, error) {
	inst, err := p.own(ctx, instance)
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	return toProviderInstance(inst), nil
}

// own fetches an instance and refuses those of other controllers.
func (p *Provider) own(ctx context.Context, name string) (*api.InstanceFull, error) {
	inst, err := p.srv.Instance(ctx, name)
	if err != nil {
		return nil, err
	}
	if inst.Config[KeyControllerID] != p.controller {
		return nil, fmt.Errorf("instance %q belongs to another controller: %w", name, sdk.ErrNotFound)
	}
	return inst, nil
}

// ListInstances returns this controller's instances of poolID.
func (p *Provider) ListInstances(ctx context.Context, poolID string) ([]provider.ProviderInstance, error) {
	list, err := p.tagged(ctx, map[string]string{KeyControllerID: p.controller, KeyPoolID: poolID})
	if err != nil {
		return nil, err
	}
	out := make([]provider.ProviderInstance, 0, len(list))
	for i := range list {
		out = append(out, toProviderInstance(&list[i]))
	}
	return out, nil
}

// tagged lists instances carrying every tag and checks them again
// client-side (servers without api_filtering return everything).
func (p *Provider) tagged(ctx context.Context, tags map[string]string) ([]api.InstanceFull, error) {
	list, err := p.srv.Instances(ctx, tags)
	if err != nil {
		return nil, err
	}
	return FilterTagged(list, tags), nil
}

// FilterTagged keeps the instances whose config has every tag.
func FilterTagged(list []api.InstanceFull, tags map[string]string) []api.InstanceFull {
	var out []api.InstanceFull
	for _, inst := range list {
		ok := true
		for k, v := range tags {
			if inst.Config[k] != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, inst)
		}
	}
	return out
}

// RemoveAllInstances deletes every instance of this controller.
func (p *Provider) RemoveAllInstances(ctx context.Context) error {
	list, err := p.tagged(ctx, map[string]string{KeyControllerID: p.controller})
	if err != nil {
		return err
	}
	var errs []error
	for _, inst := range list {
		if err := p.forceDelete(ctx, inst.Name); err != nil && !errors.Is(err, sdk.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Start starts an instance; starting a running one is a no-op.
func (p *Provider) Start(ctx context.Context, instance string) error {
	inst, err := p.own(ctx, instance)
	if err != nil || inst.StatusCode == api.Running {
		return err
	}
	return p.srv.SetState(ctx, instance, api.InstanceStatePut{Action: "start", Timeout: -1})
}

// Stop stops an instance (clean shutdown, forced after 30 s); stopping a
// stopped one is a no-op.
func (p *Provider) Stop(ctx context.Context, instance string) error {
	inst, err := p.own(ctx, instance)
	if err != nil || inst.StatusCode == api.Stopped {
		return err
	}
	err = p.srv.SetState(ctx, instance, api.InstanceStatePut{Action: "stop", Timeout: 30})
	if err != nil {
		err = p.srv.SetState(ctx, instance, api.InstanceStatePut{Action: "stop", Force: true, Timeout: -1})
	}
	return err
}

// Version implements sdk.Versioner.
func (p *Provider) Version(context.Context) string { return Version }

// ValidatePoolInfo checks extra specs, and image and flavor when given.
func (p *Provider) ValidatePoolInfo(ctx context.Context, image, flavor string, extraSpecs json.RawMessage) error {
	specs, err := ParseExtraSpecs(extraSpecs)
	if err != nil {
		return err
	}
	if image != "" {
		if _, err := p.imageSource(ctx, image); err != nil {
			return err
		}
	}
	_, err = p.profiles(ctx, flavor, specs)
	return err
}

// ConfigJSONSchema describes the config file.
func (p *Provider) ConfigJSONSchema(context.Context) (json.RawMessage, error) {
	return ConfigSchema(), nil
}

// ExtraSpecsJSONSchema describes the accepted extra specs.
func (p *Provider) ExtraSpecsJSONSchema(context.Context) (json.RawMessage, error) {
	return ExtraSpecsSchema(), nil
}

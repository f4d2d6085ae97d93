package providerexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/garrison-ci/garrison/provider"
)

// CreateInstance sends bi on stdin and returns the created instance.
// poolExtraSpecs is the GARM_POOL_EXTRASPECS document (v0.1.1), normally
// the same (possibly template-injected) JSON as bi.ExtraSpecs. The caller's
// ctx deadline (runner bootstrap timeout) and the provider's exec timeout
// both apply; the earlier wins. A returned status of stopped or unknown is
// passed through: treating it as a provisioning failure is the caller's job.
func (p *Provider) CreateInstance(ctx context.Context, bi provider.BootstrapInstance, poolExtraSpecs json.RawMessage) (provider.ProviderInstance, error) {
	req := request{
		cmd:    provider.CreateInstance,
		target: provider.Target{PoolID: bi.PoolID, ExtraSpecs: poolExtraSpecs},
		label:  bi.Name,
	}
	stdin, err := json.Marshal(bi)
	if err != nil {
		return provider.ProviderInstance{}, p.newError(req, ErrInvalidRequest, err)
	}
	req.stdin = stdin
	inst, err := p.callInstance(ctx, req)
	if err == nil && inst.Name != bi.Name {
		p.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "provider returned a different instance name",
			p.attrs(req, slog.String("returned_name", inst.Name))...)
	}
	return inst, err
}

// DeleteInstance deletes t.InstanceID. A missing instance (exit 30) is
// success.
func (p *Provider) DeleteInstance(ctx context.Context, t provider.Target) error {
	_, err := p.call(ctx, request{cmd: provider.DeleteInstance, target: t, label: t.InstanceID})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// GetInstance returns the instance t.InstanceID.
func (p *Provider) GetInstance(ctx context.Context, t provider.Target) (provider.ProviderInstance, error) {
	return p.callInstance(ctx, request{cmd: provider.GetInstance, target: t, label: t.InstanceID})
}

// ListInstances returns the instances of pool t.PoolID (never nil on
// success).
func (p *Provider) ListInstances(ctx context.Context, t provider.Target) ([]provider.ProviderInstance, error) {
	var list []provider.ProviderInstance
	req := request{cmd: provider.ListInstances, target: t, parse: func(out []byte) (err error) {
		list, err = provider.ParseInstanceList(out)
		return err
	}}
	if _, err := p.call(ctx, req); err != nil {
		return nil, err
	}
	return list, nil
}

// RemoveAllInstances removes every instance of this controller.
func (p *Provider) RemoveAllInstances(ctx context.Context, t provider.Target) error {
	_, err := p.call(ctx, request{cmd: provider.RemoveAllInstances, target: t})
	return err
}

// StartInstance starts the stopped instance t.InstanceID.
func (p *Provider) StartInstance(ctx context.Context, t provider.Target) error {
	_, err := p.call(ctx, request{cmd: provider.StartInstance, target: t, label: t.InstanceID})
	return err
}

// StopInstance stops the instance t.InstanceID.
func (p *Provider) StopInstance(ctx context.Context, t provider.Target) error {
	_, err := p.call(ctx, request{cmd: provider.StopInstance, target: t, label: t.InstanceID})
	return err
}

// GetVersion returns the provider's version string (trimmed).
func (p *Provider) GetVersion(ctx context.Context) (string, error) {
	req := request{cmd: provider.GetVersion, parse: func(out []byte) error {
		if !utf8.Valid(out) {
			return fmt.Errorf("%w: version is not valid UTF-8", provider.ErrInvalidOutput)
		}
		return nil
	}}
	out, err := p.call(ctx, req)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// GetSupportedInterfaceVersions returns the interface versions the provider
// says it implements (v0.1.1 providers).
func (p *Provider) GetSupportedInterfaceVersions(ctx context.Context) ([]string, error) {
	var list []string
	req := request{cmd: provider.GetSupportedInterfaceVersions, parse: func(out []byte) (err error) {
		list, err = provider.ParseStringList(out)
		return err
	}}
	if _, err := p.call(ctx, req); err != nil {
		return nil, err
	}
	return list, nil
}

// ValidatePoolInfo asks the provider to validate a pool's extra specs
// (t.ExtraSpecs). Because the SDK does not read image and flavor for this
// command (spec C-3, D-10), bi, when non-nil, is also written to stdin for
// providers that do; a nil error means valid.
func (p *Provider) ValidatePoolInfo(ctx context.Context, t provider.Target, bi *provider.BootstrapInstance) error {
	req := request{cmd: provider.ValidatePoolInfo, target: provider.Target{ExtraSpecs: t.ExtraSpecs}}
	if bi != nil {
		stdin, err := json.Marshal(bi)
		if err != nil {
			return p.newError(req, ErrInvalidRequest, err)
		}
		req.stdin = stdin
	}
	_, err := p.call(ctx, req)
	return err
}

// GetConfigJSONSchema returns the JSON Schema of the provider's config
// file; nil when the provider prints nothing (no schema).
func (p *Provider) GetConfigJSONSchema(ctx context.Context) (json.RawMessage, error) {
	return p.callSchema(ctx, request{cmd: provider.GetConfigJSONSchema})
}

// GetExtraSpecsJSONSchema returns the JSON Schema of pool extra specs; nil
// when the provider prints nothing (no schema).
func (p *Provider) GetExtraSpecsJSONSchema(ctx context.Context) (json.RawMessage, error) {
	return p.callSchema(ctx, request{cmd: provider.GetExtraSpecsJSONSchema})
}

// callInstance runs req and parses one instance from stdout.
func (p *Provider) callInstance(ctx context.Context, req request) (provider.ProviderInstance, error) {
	var inst provider.ProviderInstance
	req.parse = func(out []byte) (err error) {
		inst, err = provider.ParseInstance(out)
		return err
	}
	if _, err := p.call(ctx, req); err != nil {
		return provider.ProviderInstance{}, err
	}
	return inst, nil
}

// callSchema runs req and checks its stdout is empty or one JSON document.
func (p *Provider) callSchema(ctx context.Context, req request) (json.RawMessage, error) {
	var schema json.RawMessage
	req.parse = func(out []byte) error {
		trimmed := strings.TrimSpace(string(out))
		if trimmed == "" {
			return nil
		}
		if !utf8.ValidString(trimmed) || !json.Valid([]byte(trimmed)) {
			return fmt.Errorf("%w: schema is not a JSON document", provider.ErrInvalidOutput)
		}
		schema = json.RawMessage(trimmed)
		return nil
	}
	if _, err := p.call(ctx, req); err != nil {
		return nil, err
	}
	return schema, nil
}

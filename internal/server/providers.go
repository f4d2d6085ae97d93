package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/provider"
)

// providerInfo is a configured provider as the REST API lists it. Its version and
// supported interface versions are learnt in the background at start-up, so listing
// providers never waits for a provider executable.
type providerInfo struct {
	cfg  config.Provider
	exec *providerexec.Provider

	mu         sync.Mutex // guards version and interfaces
	version    string
	interfaces []string
}

func (p *providerInfo) Name() string        { return p.cfg.Name }
func (p *providerInfo) Type() string        { return "external" }
func (p *providerInfo) Description() string { return p.cfg.Description }

// Version returns the version the provider reported, or "".
func (p *providerInfo) Version() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.version
}

// InterfaceVersions returns the interface versions the provider reported, or nil.
func (p *providerInfo) InterfaceVersions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.interfaces
}

// introspect asks the provider for its version and interface versions.
func (p *providerInfo) introspect(ctx context.Context, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	info, err := p.exec.Introspect(ctx)
	if err != nil {
		logger.Warn("provider introspection failed", "provider", p.cfg.Name, "err", err)
		return
	}
	p.mu.Lock()
	p.version, p.interfaces = info.Version, info.SupportedInterfaceVersions
	p.mu.Unlock()
}

// newProviders builds the host side of every configured provider.
func newProviders(cfgs []config.Provider, controllerID string, logger *slog.Logger, obs providerexec.Observer) ([]*providerInfo, error) {
	out := make([]*providerInfo, 0, len(cfgs))
	for _, c := range cfgs {
		ex, err := providerexec.New(providerExecConfig(c, controllerID, logger, obs))
		if err != nil {
			return nil, err
		}
		out = append(out, &providerInfo{cfg: c, exec: ex})
	}
	return out, nil
}

// providerExecConfig is the host-side configuration of one [[provider]].
func providerExecConfig(c config.Provider, controllerID string, logger *slog.Logger, obs providerexec.Observer) providerexec.Config {
	timeout := c.ExecTimeout
	if timeout == 0 {
		timeout = -1 // GARM: 0 means no limit beyond the caller's deadline
	}
	cmds := make(map[provider.Command]time.Duration, len(c.CommandTimeouts))
	for name, d := range c.CommandTimeouts {
		cmds[provider.Command(name)] = d
	}
	return providerexec.Config{
		CommandTimeouts:  cmds,
		Name:             c.Name,
		Executable:       c.Executable,
		ConfigFile:       c.ConfigFile,
		InterfaceVersion: c.InterfaceVersion,
		EnvPrefixes:      c.EnvironmentVariables,
		ControllerID:     controllerID,
		ExecTimeout:      timeout,
		MaxConcurrency:   c.MaxConcurrency,
		Logger:           logger,
		Observer:         obs,
	}
}

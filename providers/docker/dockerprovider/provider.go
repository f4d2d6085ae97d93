package dockerprovider

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

// Version is reported by GetVersion.
const Version = "v0.1.0"

// Labels tagging every container (provider-contract.md L-1).
const (
	LabelControllerID = "runner.controller-id"
	LabelPoolID       = "runner.pool-id"
)

// Errors telling pool misconfiguration apart.
var (
	ErrImageNotFound = errors.New("image not found")
	ErrUnsupportedOS = errors.New("the docker provider runs linux runners only")
)

// EntryPath is where the entry script is copied in the container.
const EntryPath = "/garrison-entry.sh"

// entryCmd runs the entry script once, logs it, then idles; with Init the
// idle sleep stops at once on SIGTERM.
var entryCmd = []string{"/bin/sh", "-c",
	"/bin/bash " + EntryPath + " >>/var/log/garrison-entry.log 2>&1; exec sleep infinity"}

// Provider is the Docker provider for one invocation.
type Provider struct {
	cfg        Config
	eng        Engine
	controller string
}

var (
	_ sdk.Provider                 = (*Provider)(nil)
	_ sdk.Versioner                = (*Provider)(nil)
	_ sdk.PoolValidator            = (*Provider)(nil)
	_ sdk.ExtraSpecsSchemaProvider = (*Provider)(nil)
)

// New is the sdk.Factory: it loads the config and opens a client.
func New(_ context.Context, env sdk.Environment) (sdk.Provider, error) {
	cfg, err := LoadConfig(env.ConfigFile)
	if err != nil {
		return nil, err
	}
	c, err := Connect(cfg)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return NewWithEngine(cfg, c, env.ControllerID), nil
}

// NewWithEngine builds a Provider on an engine client.
func NewWithEngine(cfg Config, eng Engine, controllerID string) *Provider {
	return &Provider{cfg: cfg, eng: eng, controller: controllerID}
}

// notFound wraps err with sdk.ErrNotFound when the daemon says not found.
func notFound(err error, what string) error {
	if err == nil {
		return nil
	}
	if cerrdefs.IsNotFound(err) {
		return fmt.Errorf("%s: %w: %w", what, sdk.ErrNotFound, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// CreateInstance creates the container, copies the entry script in and
// starts it; a half-created container is removed again.
func (p *Provider) CreateInstance(ctx context.Context, bi provider.BootstrapInstance) (provider.ProviderInstance, error) {
	cfg, host, script, err := p.createConfig(ctx, bi)
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	resp, err := p.eng.ContainerCreate(ctx, cfg, host, nil, nil, bi.Name)
	if cerrdefs.IsConflict(err) {
		return provider.ProviderInstance{}, fmt.Errorf("container %q: %w: %w", bi.Name, sdk.ErrDuplicate, err)
	}
	if err != nil {
		return provider.ProviderInstance{}, fmt.Errorf("creating container %q: %w", bi.Name, err)
	}
	if err := p.copyAndStart(ctx, resp.ID, script); err != nil {
		rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = p.eng.ContainerRemove(rmCtx, resp.ID, container.RemoveOptions{Force: true})
		return provider.ProviderInstance{}, err
	}
	return p.GetInstance(ctx, bi.Name)
}

// copyAndStart copies the entry script into the container and starts it.
func (p *Provider) copyAndStart(ctx context.Context, id string, script []byte) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{Name: EntryPath[1:], Mode: 0o700, Size: int64(len(script)), ModTime: time.Now()}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if _, err := tw.Write(script); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := p.eng.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{}); err != nil {
		return fmt.Errorf("copying the entry script: %w", err)
	}
	if err := p.eng.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		return fmt.Errorf("starting container: %w", err)
	}
	return nil
}

// createConfig builds the container and host configs and the entry script.
func (p *Provider) createConfig(ctx context.Context, bi provider.BootstrapInstance) (*container.Config, *container.HostConfig, []byte, error) {
	if bi.OSType != "" && bi.OSType != "linux" {
		return nil, nil, nil, fmt.Errorf("%w (os_type %q)", ErrUnsupportedOS, bi.OSType)
	}
	specs, err := ParseExtraSpecs(bi.ExtraSpecs)
	if err != nil {
		return nil, nil, nil, err
	}
	limits, err := p.cfg.ResolveLimits(bi.Flavor, specs)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := p.checkImage(ctx, bi.Image); err != nil {
		return nil, nil, nil, err
	}
	script, err := userdata.ShellScript(bi, specs.Spec)
	if err != nil {
		return nil, nil, nil, err
	}
	init := true
	cfg := &container.Config{
		Hostname: bi.Name, Image: bi.Image, Cmd: entryCmd,
		Labels: map[string]string{LabelControllerID: p.controller, LabelPoolID: bi.PoolID},
	}
	host := &container.HostConfig{
		NetworkMode: container.NetworkMode(p.cfg.Network), Init: &init,
		Resources: container.Resources{NanoCPUs: int64(limits.CPUs * 1e9), Memory: limits.MemoryMiB << 20},
	}
	return cfg, host, script, nil
}

// checkImage fails clearly when the image is not on the daemon (there is
// no registry to pull from).
func (p *Provider) checkImage(ctx context.Context, image string) error {
	if image == "" {
		return fmt.Errorf("%w: the pool has no image", ErrImageNotFound)
	}
	_, err := p.eng.ImageInspect(ctx, image)
	if cerrdefs.IsNotFound(err) {
		return fmt.Errorf("%w: %q is not on the daemon (import or load it first)", ErrImageNotFound, image)
	}
	return err
}

// own inspects a container and refuses those of other controllers.
func (p *Provider) own(ctx context.Context, instance string) (container.InspectResponse, error) {
	c, err := p.eng.ContainerInspect(ctx, instance)
	if err != nil {
		return c, notFound(err, "container "+instance)
	}
	if c.Config == nil || c.Config.Labels[LabelControllerID] != p.controller {
		return c, fmt.Errorf("container %q belongs to another controller: %w", instance, sdk.ErrNotFound)
	}
	return c, nil
}

// DeleteInstance removes a container of this controller, forcefully.
func (p *Provider) DeleteInstance(ctx context.Context, instance string) error {
	c, err := p.own(ctx, instance)
	if err != nil {
		return err
	}
	return notFound(p.eng.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}), "removing container "+instance)
}

// GetInstance returns one container of this controller.
func (p *Provider) GetInstance(ctx context.Context, instance string) (provider.ProviderInstance, error) {
	c, err := p.own(ctx, instance)
	if err != nil {
		return provider.ProviderInstance{}, err
	}
	return toProviderInstance(c), nil
}

// ListInstances returns this controller's containers of poolID.
func (p *Provider) ListInstances(ctx context.Context, poolID string) ([]provider.ProviderInstance, error) {
	list, err := p.labelled(ctx, map[string]string{LabelControllerID: p.controller, LabelPoolID: poolID})
	if err != nil {
		return nil, err
	}
	out := make([]provider.ProviderInstance, 0, len(list))
	for _, s := range list {
		out = append(out, summaryInstance(s))
	}
	return out, nil
}

// labelled lists containers (running or not) with every label, filtered
// by the daemon and checked again here.
func (p *Provider) labelled(ctx context.Context, labels map[string]string) ([]container.Summary, error) {
	f := filters.NewArgs()
	for k, v := range labels {
		f.Add("label", k+"="+v)
	}
	list, err := p.eng.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("listing containers: %w", err)
	}
	return FilterLabelled(list, labels), nil
}

// FilterLabelled keeps the containers that carry every label.
func FilterLabelled(list []container.Summary, labels map[string]string) []container.Summary {
	var out []container.Summary
	for _, s := range list {
		ok := true
		for k, v := range labels {
			if s.Labels[k] != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// RemoveAllInstances removes every container of this controller.
func (p *Provider) RemoveAllInstances(ctx context.Context) error {
	list, err := p.labelled(ctx, map[string]string{LabelControllerID: p.controller})
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range list {
		err := p.eng.ContainerRemove(ctx, s.ID, container.RemoveOptions{Force: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing container %s: %w", s.ID, err))
		}
	}
	return errors.Join(errs...)
}

// Start starts a container; the entry script does not run twice.
func (p *Provider) Start(ctx context.Context, instance string) error {
	c, err := p.own(ctx, instance)
	if err != nil || (c.State != nil && c.State.Running) {
		return err
	}
	return p.eng.ContainerStart(ctx, c.ID, container.StartOptions{})
}

// Stop stops a container (SIGTERM, SIGKILL after the stop timeout).
func (p *Provider) Stop(ctx context.Context, instance string) error {
	c, err := p.own(ctx, instance)
	if err != nil {
		return err
	}
	timeout := p.cfg.StopTimeoutSeconds
	return p.eng.ContainerStop(ctx, c.ID, container.StopOptions{Timeout: &timeout})
}

// Version implements sdk.Versioner.
func (p *Provider) Version(context.Context) string { return Version }

// ValidatePoolInfo checks extra specs, flavor and, when given, the image.
func (p *Provider) ValidatePoolInfo(ctx context.Context, image, flavor string, extraSpecs json.RawMessage) error {
	specs, err := ParseExtraSpecs(extraSpecs)
	if err != nil {
		return err
	}
	if _, err := p.cfg.ResolveLimits(flavor, specs); err != nil {
		return err
	}
	if image == "" {
		return nil
	}
	return p.checkImage(ctx, image)
}

// ExtraSpecsJSONSchema describes the accepted extra specs.
func (p *Provider) ExtraSpecsJSONSchema(context.Context) (json.RawMessage, error) {
	return ExtraSpecsSchema(), nil
}

package incusprovider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lxc/incus/v6/shared/api"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

// Errors telling pool misconfiguration apart.
var (
	ErrImageNotFound   = errors.New("image not found")
	ErrUnknownRemote   = errors.New("unknown image remote")
	ErrProfileNotFound = errors.New("profile not found")
)

// createRequest builds the instance creation request for bi.
func (p *Provider) createRequest(ctx context.Context, bi provider.BootstrapInstance) (api.InstancesPost, error) {
	specs, err := ParseExtraSpecs(bi.ExtraSpecs)
	if err != nil {
		return api.InstancesPost{}, err
	}
	src, err := p.imageSource(ctx, bi.Image)
	if err != nil {
		return api.InstancesPost{}, err
	}
	profiles, err := p.profiles(ctx, bi.Flavor, specs)
	if err != nil {
		return api.InstancesPost{}, err
	}
	ud, err := userData(bi, specs.Spec)
	if err != nil {
		return api.InstancesPost{}, err
	}
	config := map[string]string{
		KeyControllerID: p.controller, KeyPoolID: bi.PoolID,
		p.srv.UserDataKey(): string(ud),
	}
	addLimits(config, specs)
	if p.cfg.InstanceType == TypeVirtualMachine {
		config["security.secureboot"] = strconv.FormatBool(p.cfg.SecureBoot)
	}
	return api.InstancesPost{
		Name: bi.Name, Source: src, Type: api.InstanceType(p.cfg.InstanceType), Start: true,
		InstancePut: api.InstancePut{Config: config, Profiles: profiles,
			Description: "garrison runner of pool " + bi.PoolID},
	}, nil
}

// userData is cloud-init user-data for Linux and the rendered install
// script for Windows (cloudbase-init runs it).
func userData(bi provider.BootstrapInstance, s userdata.Spec) ([]byte, error) {
	if bi.OSType == "windows" {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		return userdata.InstallScript(bi, s)
	}
	return userdata.CloudConfig(bi, s)
}

// addLimits sets the resource limits the extra specs give.
func addLimits(config map[string]string, s ExtraSpecs) {
	if s.CPUs > 0 {
		config["limits.cpu"] = strconv.Itoa(s.CPUs)
	}
	if s.MemoryMiB > 0 {
		config["limits.memory"] = strconv.Itoa(s.MemoryMiB) + "MiB"
	}
}

// imageSource resolves "remote:alias" through the configured image remotes
// (the server pulls the image) and a bare alias to a local image alias.
func (p *Provider) imageSource(ctx context.Context, image string) (api.InstanceSource, error) {
	if image == "" {
		return api.InstanceSource{}, fmt.Errorf("%w: the pool has no image", ErrImageNotFound)
	}
	if remote, alias, ok := strings.Cut(image, ":"); ok {
		r, known := p.cfg.ImageRemotes[remote]
		if !known {
			return api.InstanceSource{}, fmt.Errorf("%w %q in image %q (configured: %v)", ErrUnknownRemote, remote, image, p.cfg.remoteNames())
		}
		return api.InstanceSource{Type: "image", Mode: "pull", Server: r.Address, Protocol: r.Protocol, Alias: alias}, nil
	}
	if _, err := p.srv.ImageAlias(ctx, image); err != nil {
		if errors.Is(err, sdk.ErrNotFound) {
			return api.InstanceSource{}, fmt.Errorf("%w: no local image alias %q on the server (import it or use remote:alias)", ErrImageNotFound, image)
		}
		return api.InstanceSource{}, err
	}
	return api.InstanceSource{Type: "image", Alias: image}, nil
}

// profiles returns the profiles of an instance: default (if configured),
// the configured profiles, then the flavor's profile. A flavor without a
// profile of that name is an error unless the extra specs set limits.
func (p *Provider) profiles(ctx context.Context, flavor string, specs ExtraSpecs) ([]string, error) {
	var out []string
	if p.cfg.IncludeDefaultProfile {
		out = append(out, "default")
	}
	out = appendNew(out, p.cfg.Profiles...)
	if flavor == "" && len(p.cfg.Profiles) == 0 {
		return out, nil
	}
	have, err := p.srv.Profiles(ctx)
	if err != nil {
		return nil, err
	}
	for _, name := range p.cfg.Profiles {
		if !contains(have, name) {
			return nil, fmt.Errorf("%w: configured profile %q", ErrProfileNotFound, name)
		}
	}
	switch {
	case flavor == "":
	case contains(have, flavor):
		out = appendNew(out, flavor)
	case !specs.HasLimits():
		return nil, fmt.Errorf("%w: no profile for flavor %q (create it or set cpus/memory_mib in extra specs)", ErrProfileNotFound, flavor)
	}
	return out, nil
}

// appendNew appends the values not yet in list.
func appendNew(list []string, vals ...string) []string {
	for _, v := range vals {
		if !contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// contains reports whether list holds v.
func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

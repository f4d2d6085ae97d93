package incusprovider

import (
	"context"
	"fmt"
	"sync"

	"github.com/lxc/incus/v6/shared/api"

	"github.com/garrison-ci/garrison/provider/sdk"
)

// fakeServer is an in-memory Server.
type fakeServer struct {
	mu        sync.Mutex // guards the fields below
	instances map[string]*api.InstanceFull
	aliases   map[string]string
	profiles  []string
	created   []api.InstancesPost
	createErr error
}

func newFake() *fakeServer {
	return &fakeServer{instances: map[string]*api.InstanceFull{},
		aliases: map[string]string{"garrison-runner": "abc"}, profiles: []string{"default", "small"}}
}

func (f *fakeServer) Instance(_ context.Context, name string) (*api.InstanceFull, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	inst, ok := f.instances[name]
	if !ok {
		return nil, fmt.Errorf("instance %q: %w", name, sdk.ErrNotFound)
	}
	cp := *inst
	return &cp, nil
}

// Instances ignores match, like a server without api_filtering.
func (f *fakeServer) Instances(context.Context, map[string]string) ([]api.InstanceFull, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []api.InstanceFull
	for _, inst := range f.instances {
		out = append(out, *inst)
	}
	return out, nil
}

func (f *fakeServer) Create(_ context.Context, req api.InstancesPost) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created = append(f.created, req)
	f.instances[req.Name] = &api.InstanceFull{Instance: api.Instance{Name: req.Name, InstancePut: api.InstancePut{Config: req.Config, Architecture: "x86_64"},
		StatusCode: api.Running, Status: "Running"},
		State: &api.InstanceState{Network: map[string]api.InstanceStateNetwork{
			"eth0": {Addresses: []api.InstanceStateNetworkAddress{{Family: "inet", Address: "10.213.0.5", Scope: "global"}}},
			"lo":   {Type: "loopback", Addresses: []api.InstanceStateNetworkAddress{{Address: "127.0.0.1", Scope: "local"}}},
		}}}
	return f.createErr
}

func (f *fakeServer) Delete(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	inst, ok := f.instances[name]
	switch {
	case !ok:
		return fmt.Errorf("instance %q: %w", name, sdk.ErrNotFound)
	case inst.StatusCode == api.Running:
		return fmt.Errorf("instance %q is running", name)
	}
	delete(f.instances, name)
	return nil
}

func (f *fakeServer) SetState(_ context.Context, name string, st api.InstanceStatePut) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	inst, ok := f.instances[name]
	if !ok {
		return fmt.Errorf("instance %q: %w", name, sdk.ErrNotFound)
	}
	switch st.Action {
	case "start":
		inst.StatusCode = api.Running
	case "stop":
		if inst.StatusCode == api.Stopped {
			return fmt.Errorf("instance %q is already stopped", name)
		}
		inst.StatusCode = api.Stopped
	}
	return nil
}

func (f *fakeServer) ImageAlias(_ context.Context, alias string) (string, error) {
	if fp, ok := f.aliases[alias]; ok {
		return fp, nil
	}
	return "", fmt.Errorf("image alias %q: %w", alias, sdk.ErrNotFound)
}

func (f *fakeServer) Profiles(context.Context) ([]string, error) { return f.profiles, nil }

func (f *fakeServer) UserDataKey() string { return "cloud-init.user-data" }

package dockerprovider

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// fakeEngine is an in-memory Engine.
type fakeEngine struct {
	mu         sync.Mutex // guards the fields below
	containers map[string]*fakeContainer
	images     map[string]bool
	startErr   error
	lastList   container.ListOptions
}

type fakeContainer struct {
	cfg    *container.Config
	host   *container.HostConfig
	state  string
	copied map[string]int64 // path -> size
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{containers: map[string]*fakeContainer{}, images: map[string]bool{"runner:1": true}}
}

func (f *fakeEngine) ContainerCreate(_ context.Context, cfg *container.Config, host *container.HostConfig,
	_ *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.containers[name]; ok {
		return container.CreateResponse{}, cerrdefs.ErrConflict.WithMessage("name in use")
	}
	f.containers[name] = &fakeContainer{cfg: cfg, host: host, state: container.StateCreated, copied: map[string]int64{}}
	return container.CreateResponse{ID: name}, nil
}

func (f *fakeEngine) get(id string) (*fakeContainer, error) {
	c, ok := f.containers[id]
	if !ok {
		return nil, cerrdefs.ErrNotFound.WithMessage("no such container: " + id)
	}
	return c, nil
}

func (f *fakeEngine) CopyToContainer(_ context.Context, id, dst string, content io.Reader, _ container.CopyToContainerOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.get(id)
	if err != nil {
		return err
	}
	n, _ := io.Copy(io.Discard, content)
	c.copied[dst] = n
	return nil
}

func (f *fakeEngine) setState(id, state string, err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, gerr := f.get(id)
	if gerr != nil {
		return gerr
	}
	if err != nil {
		return err
	}
	c.state = state
	return nil
}

func (f *fakeEngine) ContainerStart(_ context.Context, id string, _ container.StartOptions) error {
	return f.setState(id, container.StateRunning, f.startErr)
}

func (f *fakeEngine) ContainerStop(_ context.Context, id string, _ container.StopOptions) error {
	return f.setState(id, container.StateExited, nil)
}

func (f *fakeEngine) ContainerRemove(_ context.Context, id string, _ container.RemoveOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.get(id); err != nil {
		return err
	}
	delete(f.containers, id)
	return nil
}

func (f *fakeEngine) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.get(id)
	if err != nil {
		return container.InspectResponse{}, err
	}
	return container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{ID: id, Name: "/" + id,
			State: &container.State{Status: c.state, Running: c.state == container.StateRunning}},
		Config: c.cfg,
		NetworkSettings: &container.NetworkSettings{Networks: map[string]*network.EndpointSettings{
			"bridge": {IPAddress: "10.216.0.7"}}},
	}, nil
}

// ContainerList ignores the filters, like a daemon that did not apply them.
func (f *fakeEngine) ContainerList(_ context.Context, opts container.ListOptions) ([]container.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastList = opts
	var out []container.Summary
	for id, c := range f.containers {
		out = append(out, container.Summary{ID: id, Names: []string{"/" + id}, Labels: c.cfg.Labels, State: c.state})
	}
	return out, nil
}

func (f *fakeEngine) ImageInspect(_ context.Context, id string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	if !f.images[id] {
		return image.InspectResponse{}, cerrdefs.ErrNotFound.WithMessage(fmt.Sprintf("no such image: %s", strings.TrimSpace(id)))
	}
	return image.InspectResponse{ID: id}, nil
}

package forges

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/sweep"
	"github.com/garrison-ci/garrison/provider"
)

// Store is what the hub reads to build clients.
type Store interface {
	Credentials(ctx context.Context, id uint) (garrison.Credentials, error)
	Endpoint(ctx context.Context, name string) (garrison.Endpoint, error)
}

// Options configure a Hub. Store and HookURL are required.
type Options struct {
	Store    Store
	Logger   *slog.Logger
	Observer Observer
	// HookURL returns the controller webhook URL that garrison installs on forges.
	HookURL func(ctx context.Context) (string, error)
	// HooksChanged, when set, is told that garrison installed or removed an entity's
	// webhook (the sweep then looks the webhook up again). It must not block.
	HooksChanged func(entityID string)
	// Health, when set, is told what forge calls say about their entity (observe).
	Health Health
}

// Hub hands out forge clients per credentials, rebuilding a client when its credentials
// or endpoint change. It adapts the GitHub and Gitea clients to the small interfaces the
// API, the instance API, the sweep and the reconciler declare.
type Hub struct {
	o Options

	mu      sync.Mutex // guards clients
	clients map[uint]*credClients
}

// credClients are the clients of one credentials; exactly one of gh and gt is set.
type credClients struct {
	credStamp, endpointStamp time.Time
	endpoint                 garrison.Endpoint
	gh                       *github.Client
	gt                       *gitea.Client
	sweep                    sweep.Forge // built on first use; guarded by Hub.mu

	// giteaTools caches the Gitea runner downloads; guarded by Hub.mu.
	giteaTools   []provider.RunnerApplicationDownload
	giteaToolsAt time.Time
}

// giteaToolsTTL is how long a Gitea endpoint's runner downloads are reused.
const giteaToolsTTL = 30 * time.Minute

// New returns a hub with no clients yet.
func New(o Options) *Hub {
	return &Hub{o: o, clients: map[uint]*credClients{}}
}

// clientsFor returns the clients for an entity's credentials.
func (h *Hub) clientsFor(ctx context.Context, e garrison.Entity) (*credClients, error) {
	cred, err := h.o.Store.Credentials(ctx, e.CredentialsID)
	if err != nil {
		return nil, err
	}
	ep, err := h.o.Store.Endpoint(ctx, cred.Endpoint)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	c, ok := h.clients[cred.ID]
	h.mu.Unlock()
	if ok && c.credStamp.Equal(cred.UpdatedAt) && c.endpointStamp.Equal(ep.UpdatedAt) {
		return c, nil
	}
	c = &credClients{credStamp: cred.UpdatedAt, endpointStamp: ep.UpdatedAt, endpoint: ep}
	switch cred.ForgeType {
	case garrison.Gitea:
		c.gt, err = gitea.New(ep, cred, gitea.Options{Logger: h.o.Logger})
	default:
		c.gh, err = github.New(ep, cred, github.Options{Logger: h.o.Logger, Observer: h.rateObserver(cred, ep)})
	}
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.clients[cred.ID] = c
	h.mu.Unlock()
	return c, nil
}

// RateLimit returns the last observed core budget of GitHub credentials, without calling
// the forge.
func (h *Hub) RateLimit(credentialsID uint) (garrison.RateLimit, bool) {
	h.mu.Lock()
	c, ok := h.clients[credentialsID]
	h.mu.Unlock()
	if !ok || c.gh == nil {
		return garrison.RateLimit{}, false
	}
	for _, rs := range c.gh.RateLimits() {
		if rs.Resource == "core" || rs.Resource == "" {
			return rs.RateLimit, true
		}
	}
	return garrison.RateLimit{}, false
}

// RemoveRunner deletes a forge runner registered for e.
func (h *Hub) RemoveRunner(ctx context.Context, e garrison.Entity, agentID int64) error {
	c, err := h.clientsFor(ctx, e)
	if err != nil {
		return err
	}
	if c.gt != nil {
		err = c.gt.DeleteRunner(ctx, e, agentID)
	} else {
		err = c.gh.DeleteRunner(ctx, e, agentID)
	}
	h.observe(e, credentialsCall, "RemoveEntityRunner", err)
	return err
}

// RegistrationToken returns a runner registration token for e.
func (h *Hub) RegistrationToken(ctx context.Context, e garrison.Entity) (string, error) {
	c, err := h.clientsFor(ctx, e)
	if err != nil {
		return "", err
	}
	var tok string
	if c.gt != nil {
		tok, err = c.gt.RegistrationToken(ctx, e)
	} else {
		tok, _, err = c.gh.RegistrationToken(ctx, e)
	}
	h.observe(e, entityCall, "CreateEntityRegistrationToken", err)
	return tok, err
}

// RunnerDownloads lists the runner downloads of e's forge, in the provider wire shape.
func (h *Hub) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	c, err := h.clientsFor(ctx, e)
	if err != nil {
		return nil, err
	}
	if c.gt != nil {
		return h.giteaDownloadsCached(ctx, c)
	}
	ds, err := c.gh.RunnerDownloads(ctx, e)
	if err != nil {
		// Only a failure is news: the client may answer from its cache.
		h.observe(e, entityCall, "ListEntityRunnerApplicationDownloads", err)
		return nil, err
	}
	out := make([]provider.RunnerApplicationDownload, len(ds))
	for i, d := range ds {
		out[i] = provider.RunnerApplicationDownload{
			OS: d.OS, Architecture: d.Architecture, DownloadURL: d.DownloadURL, Filename: d.Filename,
			TempDownloadToken: d.TempDownloadToken, SHA256Checksum: d.SHA256Checksum,
		}
	}
	return out, nil
}

// giteaDownloadsCached returns the Gitea runner downloads, fetched at most every
// giteaToolsTTL.
func (h *Hub) giteaDownloadsCached(ctx context.Context, c *credClients) ([]provider.RunnerApplicationDownload, error) {
	h.mu.Lock()
	tools, at := c.giteaTools, c.giteaToolsAt
	h.mu.Unlock()
	if tools != nil && time.Since(at) < giteaToolsTTL {
		return tools, nil
	}
	tools, err := giteaDownloads(ctx, c)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	c.giteaTools, c.giteaToolsAt = tools, time.Now()
	h.mu.Unlock()
	return tools, nil
}

// giteaDownloads lists the Gitea runner binaries of the endpoint's tools metadata URL.
func giteaDownloads(ctx context.Context, c *credClients) ([]provider.RunnerApplicationDownload, error) {
	url := c.endpoint.ToolsMetadataURL
	if url == "" {
		url = garrison.DefaultGiteaToolsURL
	}
	ds, err := c.gt.RunnerDownloads(ctx, url)
	if err != nil {
		return nil, err
	}
	out := make([]provider.RunnerApplicationDownload, len(ds))
	for i, d := range ds {
		arch, _, _ := strings.Cut(d.Architecture, "-") // arm-7 is arm
		out[i] = provider.RunnerApplicationDownload{OS: d.OS, Architecture: arch, DownloadURL: d.DownloadURL, Filename: d.Filename}
	}
	return out, nil
}

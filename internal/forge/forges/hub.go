package forges

import (
	"context"
	"log/slog"
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
	Observer github.RateObserver
	// HookURL returns the controller webhook URL that garrison installs on forges.
	HookURL func(ctx context.Context) (string, error)
	// HooksChanged, when set, is told that garrison installed or removed an entity's
	// webhook (the sweep then looks the webhook up again). It must not block.
	HooksChanged func(entityID string)
	// Health, when set, is told what forge calls say about their entity (observe).
	Health Health
}

// Hub hands out forge clients per credentials, rebuilding a client when its credentials
// or endpoint change, and serves the small interfaces the API, the instance API, the
// sweep and the reconciler declare through them (Client).
type Hub struct {
	o Options

	mu      sync.Mutex // guards clients
	clients map[uint]*credClient
}

// credClient is the client of one credentials, built for the credentials and endpoint
// as they were at the two stamps.
type credClient struct {
	credStamp, endpointStamp time.Time
	Client
	sweep sweep.Forge // built on first use; guarded by Hub.mu
}

// New returns a hub with no clients yet.
func New(o Options) *Hub {
	return &Hub{o: o, clients: map[uint]*credClient{}}
}

// clientFor returns the client of an entity's credentials, building it on first use and
// again when the credentials or their endpoint changed.
func (h *Hub) clientFor(ctx context.Context, e garrison.Entity) (*credClient, error) {
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
	c = &credClient{credStamp: cred.UpdatedAt, endpointStamp: ep.UpdatedAt}
	switch cred.ForgeType {
	case garrison.Gitea:
		c.Client, err = gitea.New(ep, cred, gitea.Options{Logger: h.o.Logger})
	default:
		c.Client, err = github.New(ep, cred, github.Options{Logger: h.o.Logger, Observer: h.o.Observer})
	}
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.clients[cred.ID] = c
	h.mu.Unlock()
	return c, nil
}

// RateLimit returns the last observed core budget of credentials, without calling the
// forge (false for Gitea, which reports none, and before the first call).
func (h *Hub) RateLimit(credentialsID uint) (garrison.RateLimit, bool) {
	h.mu.Lock()
	c, ok := h.clients[credentialsID]
	h.mu.Unlock()
	if !ok {
		return garrison.RateLimit{}, false
	}
	return c.RateLimit()
}

// RemoveRunner deletes a forge runner registered for e.
func (h *Hub) RemoveRunner(ctx context.Context, e garrison.Entity, agentID int64) error {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return err
	}
	err = c.DeleteRunner(ctx, e, agentID)
	h.observe(e, credentialsCall, err)
	return err
}

// RegistrationToken returns a runner registration token for e.
func (h *Hub) RegistrationToken(ctx context.Context, e garrison.Entity) (string, error) {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return "", err
	}
	tok, err := c.RegistrationToken(ctx, e)
	h.observe(e, entityCall, err)
	return tok, err
}

// RunnerDownloads lists the runner downloads of e's forge. Both clients cache them, so
// only a failure is news; it is about the credentials at most (Gitea's list lives at a
// tools URL that is not the entity's).
func (h *Hub) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return nil, err
	}
	ds, err := c.RunnerDownloads(ctx, e)
	if err != nil {
		h.observe(e, credentialsCall, err)
	}
	return ds, err
}

package events

import (
	"context"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Store is a store.Store that publishes a change to its Hub after each successful write
// of an endpoint, credentials, entity, pool, instance, job, the controller or a user.
// Reads and the other writes (leases, import) pass through untouched. A delete publishes
// the object as read just before it, which costs one extra read, and only while someone
// subscribes.
type Store struct {
	store.Store
	hub *Hub
}

// Wrap returns st publishing to hub.
func Wrap(st store.Store, hub *Hub) *Store { return &Store{Store: st, hub: hub} }

func (s *Store) publish(t garrison.ChangeType, op garrison.ChangeOp, obj any) {
	s.hub.Publish(garrison.Change{Type: t, Op: op, Object: obj})
}

// UpdateController publishes a controller update.
func (s *Store) UpdateController(ctx context.Context, fn func(*garrison.Controller) error) (garrison.Controller, error) {
	c, err := s.Store.UpdateController(ctx, fn)
	if err == nil {
		s.publish(garrison.ChangeController, garrison.OpUpdate, c)
	}
	return c, err
}

// UpdateUser publishes a user update (EV-8: enable, disable, password change).
func (s *Store) UpdateUser(ctx context.Context, id string, fn func(*garrison.User) error) (garrison.User, error) {
	u, err := s.Store.UpdateUser(ctx, id, fn)
	if err == nil {
		s.publish(garrison.ChangeUser, garrison.OpUpdate, u)
	}
	return u, err
}

// Endpoints of both forges are reported as github_endpoint, as GARM does.

// CreateEndpoint publishes a github_endpoint create.
func (s *Store) CreateEndpoint(ctx context.Context, e garrison.Endpoint) (garrison.Endpoint, error) {
	e, err := s.Store.CreateEndpoint(ctx, e)
	if err == nil {
		s.publish(garrison.ChangeGitHubEndpoint, garrison.OpCreate, e)
	}
	return e, err
}

// UpdateEndpoint publishes a github_endpoint update.
func (s *Store) UpdateEndpoint(ctx context.Context, name string, fn func(*garrison.Endpoint) error) (garrison.Endpoint, error) {
	e, err := s.Store.UpdateEndpoint(ctx, name, fn)
	if err == nil {
		s.publish(garrison.ChangeGitHubEndpoint, garrison.OpUpdate, e)
	}
	return e, err
}

// DeleteEndpoint publishes a github_endpoint delete when the endpoint existed.
func (s *Store) DeleteEndpoint(ctx context.Context, name string) error {
	old, found := lastRead(s, func() (garrison.Endpoint, error) { return s.Store.Endpoint(ctx, name) })
	err := s.Store.DeleteEndpoint(ctx, name)
	if err == nil && found {
		s.publish(garrison.ChangeGitHubEndpoint, garrison.OpDelete, old)
	}
	return err
}

// CreateCredentials publishes a {github,gitea}_credentials create.
func (s *Store) CreateCredentials(ctx context.Context, c garrison.Credentials) (garrison.Credentials, error) {
	c, err := s.Store.CreateCredentials(ctx, c)
	if err == nil {
		s.publish(garrison.CredentialsChangeType(c.ForgeType), garrison.OpCreate, c)
	}
	return c, err
}

// UpdateCredentials publishes a {github,gitea}_credentials update.
func (s *Store) UpdateCredentials(ctx context.Context, id uint, fn func(*garrison.Credentials) error) (garrison.Credentials, error) {
	c, err := s.Store.UpdateCredentials(ctx, id, fn)
	if err == nil {
		s.publish(garrison.CredentialsChangeType(c.ForgeType), garrison.OpUpdate, c)
	}
	return c, err
}

// DeleteCredentials publishes a {github,gitea}_credentials delete when they existed.
func (s *Store) DeleteCredentials(ctx context.Context, id uint) error {
	old, found := lastRead(s, func() (garrison.Credentials, error) { return s.Store.Credentials(ctx, id) })
	err := s.Store.DeleteCredentials(ctx, id)
	if err == nil && found {
		s.publish(garrison.CredentialsChangeType(old.ForgeType), garrison.OpDelete, old)
	}
	return err
}

// lastRead reads an object about to be deleted, when someone listens.
func lastRead[T any](s *Store, read func() (T, error)) (T, bool) {
	var zero T
	if !s.hub.Active() {
		return zero, false
	}
	v, err := read()
	if err != nil {
		return zero, false
	}
	return v, true
}

package httpapi

import (
	"context"
	"errors"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// loader reads the rows a response embeds (credentials, endpoints, entities),
// each at most once per request.
type loader struct {
	s         *Server
	creds     map[uint]garrison.Credentials
	endpoints map[string]garrison.Endpoint
	entities  map[string]garrison.Entity
}

func (s *Server) newLoader() *loader {
	return &loader{s: s, creds: map[uint]garrison.Credentials{}, endpoints: map[string]garrison.Endpoint{},
		entities: map[string]garrison.Entity{}}
}

func (l *loader) endpoint(ctx context.Context, name string) (garrison.Endpoint, error) {
	if e, ok := l.endpoints[name]; ok {
		return e, nil
	}
	e, err := l.s.store.Endpoint(ctx, name)
	if err != nil {
		return e, err
	}
	l.endpoints[name] = e
	return e, nil
}

func (l *loader) credentials(ctx context.Context, id uint) (garrison.Credentials, error) {
	if c, ok := l.creds[id]; ok {
		return c, nil
	}
	c, err := l.s.store.Credentials(ctx, id)
	if err != nil {
		return c, err
	}
	l.creds[id] = c
	return c, nil
}

func (l *loader) entity(ctx context.Context, id string) (garrison.Entity, error) {
	if e, ok := l.entities[id]; ok {
		return e, nil
	}
	e, err := l.s.store.Entity(ctx, id)
	if err != nil {
		return e, err
	}
	l.entities[id] = e
	return e, nil
}

// credentialsView loads c's endpoint and renders c.
func (l *loader) credentialsView(ctx context.Context, c garrison.Credentials) (apiv1.ForgeCredentials, error) {
	ep, err := l.endpoint(ctx, c.Endpoint)
	if err != nil {
		return apiv1.ForgeCredentials{}, err
	}
	var rl *garrison.RateLimit
	if c.ForgeType == garrison.GitHub && l.s.opts.RateLimits != nil {
		if r, ok := l.s.opts.RateLimits.RateLimit(c.ID); ok {
			rl = &r
		}
	}
	return credentialsView(c, ep, rl), nil
}

// entityView renders e as an Organization-shaped value (a Repository adds Owner).
func (l *loader) entityView(ctx context.Context, e garrison.Entity) (apiv1.Organization, error) {
	c, err := l.credentials(ctx, e.CredentialsID)
	if err != nil {
		return apiv1.Organization{}, err
	}
	cv, err := l.credentialsView(ctx, c)
	if err != nil {
		return apiv1.Organization{}, err
	}
	v := apiv1.Organization{
		ID: e.ID, Name: e.Name, CredentialsName: c.Name, CredentialsID: c.ID, Credentials: cv,
		Endpoint: cv.Endpoint, PoolBalancerType: string(e.Balancer), // agent_mode: always false (AM-6)
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
	if v.PoolBalancerType == "" {
		v.PoolBalancerType = string(garrison.RoundRobin)
	}
	if pm := l.s.opts.PoolManagers; pm != nil {
		v.PoolManagerStatus.IsRunning, v.PoolManagerStatus.FailureReason = pm.Status(e.ID)
	}
	return v, nil
}

// poolView loads p's entity and endpoint and renders p (list form).
func (l *loader) poolView(ctx context.Context, p garrison.Pool) (apiv1.Pool, error) {
	e, err := l.entity(ctx, p.EntityID)
	if err != nil {
		return apiv1.Pool{}, err
	}
	ep, err := l.endpoint(ctx, e.Endpoint)
	if err != nil {
		return apiv1.Pool{}, err
	}
	return poolView(p, e, ep), nil
}

// instanceView renders i with, when withJob, its job.
func (l *loader) instanceView(ctx context.Context, i garrison.Instance, withJob bool) (apiv1.Instance, error) {
	var job *garrison.Job
	if withJob && i.JobID != 0 {
		j, err := l.s.store.Job(ctx, i.JobID)
		switch {
		case err == nil:
			job = &j
		case !errors.Is(err, garrison.ErrNotFound):
			return apiv1.Instance{}, err
		}
	}
	return instanceView(i, job), nil
}

// instanceViews renders a list of instances (never nil).
func (l *loader) instanceViews(ctx context.Context, is []garrison.Instance) ([]apiv1.Instance, error) {
	out := make([]apiv1.Instance, 0, len(is))
	for _, i := range is {
		v, err := l.instanceView(ctx, i, true)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// poolViews renders a list of pools in list form (never nil).
func (l *loader) poolViews(ctx context.Context, ps []garrison.Pool) ([]apiv1.Pool, error) {
	out := make([]apiv1.Pool, 0, len(ps))
	for _, p := range ps {
		v, err := l.poolView(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// scaleSetView loads ss's entity and endpoint and renders ss (list form).
func (l *loader) scaleSetView(ctx context.Context, ss garrison.ScaleSet) (apiv1.ScaleSet, error) {
	e, err := l.entity(ctx, ss.EntityID)
	if err != nil {
		return apiv1.ScaleSet{}, err
	}
	ep, err := l.endpoint(ctx, e.Endpoint)
	if err != nil {
		return apiv1.ScaleSet{}, err
	}
	return scaleSetView(ss, e, ep), nil
}

package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// forgeInstanceView turns the organization-shaped view of forge instance e into a
// ForgeInstance (rest-api-2 §4.2).
func forgeInstanceView(v apiv1.Organization) apiv1.ForgeInstance {
	return apiv1.ForgeInstance{ID: v.ID, CredentialsName: v.CredentialsName, CredentialsID: v.CredentialsID,
		Credentials: v.Credentials, Endpoint: v.Endpoint, Pools: v.Pools, PoolManagerStatus: v.PoolManagerStatus,
		PoolBalancerType: v.PoolBalancerType, AgentMode: v.AgentMode, Events: v.Events,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
}

// handleListForgeInstances serves GET /forge-instances[?endpoint=]; the endpoint matches
// case-insensitively (R2-13).
func (s *Server) handleListForgeInstances(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	ents, err := s.store.ListEntities(ctx, store.EntityFilter{Type: garrison.ForgeInstance, Endpoint: r.URL.Query().Get("endpoint")})
	if err != nil {
		return err
	}
	l := s.newLoader()
	out := make([]apiv1.ForgeInstance, 0, len(ents))
	for _, e := range ents {
		v, err := l.entityView(ctx, e)
		if err != nil {
			return err
		}
		out = append(out, forgeInstanceView(v))
	}
	writeOK(w, out)
	return nil
}

// handleGetForgeInstance serves GET /forge-instances/{id}, with pools and events.
func (s *Server) handleGetForgeInstance(w http.ResponseWriter, r *http.Request) error {
	e, err := s.entityOfKind(r, fiKind)
	if err != nil {
		return err
	}
	v, err := s.detailedEntity(r.Context(), e)
	if err != nil {
		return err
	}
	writeOK(w, forgeInstanceView(v))
	return nil
}

// handleCreateForgeInstance serves POST /forge-instances (rest-api-2 §4.3).
func (s *Server) handleCreateForgeInstance(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var p apiv1.CreateForgeInstanceParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	e, err := newForgeInstance(p)
	if err != nil {
		return err
	}
	c, err := s.resolveCredentials(ctx, p.CredentialsName, garrison.Gitea)
	if err != nil {
		return err
	}
	if c.Endpoint != p.EndpointName {
		return invalid("credentials endpoint %q does not match requested endpoint %q", c.Endpoint, p.EndpointName)
	}
	e.CredentialsID = c.ID
	if e, err = s.store.CreateEntity(ctx, e); err != nil {
		return err
	}
	v, err := s.newLoader().entityView(ctx, e)
	if err != nil {
		return err
	}
	writeOK(w, forgeInstanceView(v))
	return nil
}

// newForgeInstance checks a create request's fields in the order of §4.3.
func newForgeInstance(p apiv1.CreateForgeInstanceParams) (garrison.Entity, error) {
	const prefix = "error validating params: "
	switch {
	case p.EndpointName == "":
		return garrison.Entity{}, invalid(prefix + "missing endpoint name")
	case p.CredentialsName == "":
		return garrison.Entity{}, invalid(prefix + "missing credentials name")
	case p.WebhookSecret == "":
		return garrison.Entity{}, invalid(prefix + "missing webhook secret")
	case p.ForgeType != "" && p.ForgeType != string(garrison.Gitea): // "" is gitea, as the CLI's default
		return garrison.Entity{}, invalid(prefix+"forge type %q does not support instance-level pools", p.ForgeType)
	}
	b, err := garrison.ParseBalancer(p.PoolBalancerType)
	if err != nil {
		return garrison.Entity{}, invalid(prefix + "invalid pool balancer type")
	}
	if err := checkAgentMode(p.AgentMode); err != nil {
		return garrison.Entity{}, err
	}
	return garrison.Entity{Type: garrison.ForgeInstance, Name: p.EndpointName, WebhookSecret: p.WebhookSecret, Balancer: b}, nil
}

// handleUpdateForgeInstance serves PUT /forge-instances/{id}, with the body and rules of
// an entity update.
func (s *Server) handleUpdateForgeInstance(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	cur, err := s.entityOfKind(r, fiKind)
	if err != nil {
		return err
	}
	var p apiv1.UpdateEntityParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	apply, err := s.entityUpdate(ctx, cur, p)
	if err != nil {
		return err
	}
	e, err := s.store.UpdateEntity(ctx, cur.ID, apply)
	if err != nil {
		return err
	}
	s.notifyEntity(ctx, e.ID)
	v, err := s.newLoader().entityView(ctx, e)
	if err != nil {
		return err
	}
	writeOK(w, forgeInstanceView(v))
	return nil
}

// handleDeleteForgeInstance serves DELETE /forge-instances/{id}[?keepWebhook=] (§4.4):
// 400 naming the pools while it has any; the system hook is removed best-effort unless
// keepWebhook.
func (s *Server) handleDeleteForgeInstance(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	e, err := s.entityOfKind(r, fiKind)
	if err != nil {
		return err
	}
	keep, err := queryBool(r, "keepWebhook")
	if err != nil {
		return err
	}
	if err := s.refuseWithPools(ctx, e); err != nil {
		return err
	}
	if !keep {
		s.removeWebhookBestEffort(ctx, e)
	}
	if err := s.store.DeleteEntity(ctx, e.ID); err != nil {
		return err
	}
	writeEmpty(w)
	return nil
}

// refuseWithPools is 400 naming the forge instance's pools while it has any.
func (s *Server) refuseWithPools(ctx context.Context, e garrison.Entity) error {
	pools, err := s.store.ListPools(ctx, store.PoolFilter{EntityID: e.ID})
	if err != nil || len(pools) == 0 {
		return err
	}
	ids := make([]string, len(pools))
	for i, p := range pools {
		ids[i] = p.ID
	}
	return invalid("forge instance has pools defined (%s)", strings.Join(ids, ", "))
}

// refuseForgeInstanceCredentials is 400 when a forge instance uses the credentials
// (R2-9).
func (s *Server) refuseForgeInstanceCredentials(ctx context.Context, c garrison.Credentials) error {
	if c.ForgeType != garrison.Gitea {
		return nil
	}
	ents, err := s.store.ListEntities(ctx, store.EntityFilter{Type: garrison.ForgeInstance})
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.CredentialsID == c.ID {
			return invalid("cannot delete credentials with forge instances")
		}
	}
	return nil
}

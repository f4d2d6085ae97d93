package httpapi

import (
	"context"
	"fmt"

	"github.com/garrison-ci/garrison"
)

// RenderChange is the payload of the event for c: the object as the REST API renders
// it (EV-6), secrets left out as there. It reads the rows the object embeds.
func (s *Server) RenderChange(ctx context.Context, c garrison.Change) (any, error) {
	l := s.newLoader()
	switch o := c.Object.(type) {
	case garrison.Entity:
		v, err := l.entityView(ctx, o)
		if err != nil {
			return nil, err
		}
		return entityResponse(v, o), nil
	case garrison.Pool:
		v, err := l.poolView(ctx, o)
		v.ExtraSpecs = o.ExtraSpecs
		return v, err
	case garrison.Instance:
		return l.instanceView(ctx, o, true)
	case garrison.Job:
		return jobView(o), nil
	case garrison.Controller:
		return s.controllerView(o), nil
	case garrison.User:
		return userView(o), nil
	case garrison.Credentials:
		return l.credentialsView(ctx, o)
	case garrison.Endpoint:
		return endpointView(o), nil
	}
	return nil, fmt.Errorf("no event payload for %T", c.Object)
}

// ChangeFallback is the payload of c when RenderChange fails (a row it embeds is gone):
// at least the keys GARM's delete payloads carry, which clients match deletes by.
func ChangeFallback(c garrison.Change) any {
	switch o := c.Object.(type) {
	case garrison.Entity:
		return map[string]any{"id": o.ID, "name": o.Name}
	case garrison.Pool:
		return map[string]any{"id": o.ID}
	case garrison.Instance:
		return map[string]any{"id": o.ID, "name": o.Name, "provider_id": o.ProviderID,
			"agent_id": o.AgentID, "pool_id": o.PoolID}
	case garrison.Credentials:
		return map[string]any{"id": o.ID, "name": o.Name, "forge_type": o.ForgeType}
	case garrison.Endpoint:
		return map[string]any{"name": o.Name}
	}
	return map[string]any{}
}

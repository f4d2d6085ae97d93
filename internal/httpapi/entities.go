package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// entityEventsShown is how many events GET-by-id returns.
const entityEventsShown = 100

// repoView turns the organization-shaped view of repository e into a Repository.
func repoView(v apiv1.Organization, e garrison.Entity) apiv1.Repository {
	return apiv1.Repository{ID: v.ID, Owner: e.Owner, Name: v.Name, Pools: v.Pools,
		CredentialsName: v.CredentialsName, CredentialsID: v.CredentialsID, Credentials: v.Credentials,
		Endpoint: v.Endpoint, PoolManagerStatus: v.PoolManagerStatus, PoolBalancerType: v.PoolBalancerType,
		AgentMode: v.AgentMode, Events: v.Events, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
}

// entityResponse renders e in the shape of its kind.
func entityResponse(v apiv1.Organization, e garrison.Entity) any {
	if e.Type == garrison.Repository {
		return repoView(v, e)
	}
	return v
}

// entityOfKind loads the entity whose id is in the path: 400 on a bad UUID, 404 when
// missing or of another kind.
func (s *Server) entityOfKind(r *http.Request, k entityKind) (garrison.Entity, error) {
	id, err := pathUUID(r, "id")
	if err != nil {
		return garrison.Entity{}, err
	}
	e, err := s.store.Entity(r.Context(), id)
	if err == nil && e.Type != k.typ {
		err = notFound("%s %s not found", k.noun, id)
	}
	if k.typ == garrison.ForgeInstance && garrison.CodeOf(err) == garrison.ENotFound {
		err = errForgeInstanceNotFound
	}
	return e, err
}

// errForgeInstanceNotFound is the 404 of a forge instance id that names none
// (rest-api-2 §4.4, GARM's wording).
var errForgeInstanceNotFound = notFound("error fetching forge instance: error fetching forge instance: not found")

// handleListEntities serves GET /{Ent}[?owner=&name=&endpoint=].
func (s *Server) handleListEntities(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, q := r.Context(), r.URL.Query()
		f := store.EntityFilter{Type: k.typ, Name: q.Get("name"), Endpoint: q.Get("endpoint")}
		if k.typ == garrison.Repository {
			f.Owner = q.Get("owner")
		}
		ents, err := s.store.ListEntities(ctx, f)
		if err != nil {
			return err
		}
		l := s.newLoader()
		repos, orgs := []apiv1.Repository{}, []apiv1.Organization{}
		for _, e := range ents {
			v, err := l.entityView(ctx, e)
			if err != nil {
				return err
			}
			if k.typ == garrison.Repository {
				repos = append(repos, repoView(v, e))
			} else {
				orgs = append(orgs, v)
			}
		}
		if k.typ == garrison.Repository {
			writeOK(w, repos)
			return nil
		}
		writeOK(w, orgs)
		return nil
	}
}

// handleGetEntity serves GET /{Ent}/{id}, with pools and events.
func (s *Server) handleGetEntity(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		v, err := s.detailedEntity(r.Context(), e)
		if err != nil {
			return err
		}
		writeOK(w, entityResponse(v, e))
		return nil
	}
}

// detailedEntity renders e with its pools and newest events.
func (s *Server) detailedEntity(ctx context.Context, e garrison.Entity) (apiv1.Organization, error) {
	l := s.newLoader()
	l.entities[e.ID] = e
	v, err := l.entityView(ctx, e)
	if err != nil {
		return v, err
	}
	pools, err := s.store.ListPools(ctx, store.PoolFilter{EntityID: e.ID})
	if err != nil {
		return v, err
	}
	if v.Pools, err = l.poolViews(ctx, pools); err != nil {
		return v, err
	}
	evs, err := s.store.EntityEvents(ctx, e.ID, entityEventsShown)
	if err != nil {
		return v, err
	}
	v.Events = eventViews(evs)
	return v, nil
}

// handleCreateEntity serves POST /{Ent}.
func (s *Server) handleCreateEntity(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		e, credsName, forge, err := s.decodeNewEntity(w, r, k)
		if err != nil {
			return err
		}
		c, err := s.resolveCredentials(ctx, credsName, forge)
		if err != nil {
			return err
		}
		e.CredentialsID = c.ID
		if e, err = s.store.CreateEntity(ctx, e); err != nil {
			return err
		}
		v, err := s.newLoader().entityView(ctx, e)
		if err != nil {
			return err
		}
		writeOK(w, entityResponse(v, e))
		return nil
	}
}

// decodeNewEntity decodes and validates a create request in the order of §3.5. It returns
// the entity, the credentials name and the requested forge type ("" = resolve by name).
func (s *Server) decodeNewEntity(w http.ResponseWriter, r *http.Request, k entityKind) (garrison.Entity, string, garrison.ForgeType, error) {
	var p apiv1.CreateRepoParams
	if err := decode(w, r, &p); err != nil {
		return garrison.Entity{}, "", "", err
	}
	if err := checkAgentMode(p.AgentMode); err != nil {
		return garrison.Entity{}, "", "", err
	}
	e := garrison.Entity{Type: k.typ, Name: p.Name, WebhookSecret: p.WebhookSecret}
	forge := garrison.ForgeType(p.ForgeType)
	switch {
	case k.typ == garrison.Repository && p.Owner == "":
		return e, "", "", invalid("missing owner")
	case p.Name == "":
		return e, "", "", invalid("missing %s name", map[garrison.EntityType]string{
			garrison.Repository: "repo", garrison.Organization: "org", garrison.Enterprise: "enterprise"}[k.typ])
	case p.CredentialsName == "":
		return e, "", "", invalid("missing credentials name")
	case p.WebhookSecret == "":
		return e, "", "", invalid("missing secret")
	}
	if k.typ == garrison.Repository {
		e.Owner = p.Owner
	}
	b, err := garrison.ParseBalancer(p.PoolBalancerType)
	if err != nil {
		return e, "", "", err
	}
	e.Balancer = b
	switch {
	case k.typ == garrison.Enterprise:
		forge = garrison.GitHub // enterprises exist on GitHub only
	case forge != "" && !forge.Valid():
		return e, "", "", invalid("invalid forge_type %q", p.ForgeType)
	}
	return e, p.CredentialsName, forge, nil
}

// resolveCredentials finds credentials by name, within forge when given: 400 when none
// match or the name exists for both forges.
func (s *Server) resolveCredentials(ctx context.Context, name string, forge garrison.ForgeType) (garrison.Credentials, error) {
	cs, err := s.store.ListCredentials(ctx, store.CredentialsFilter{ForgeType: forge, Name: name})
	if err != nil {
		return garrison.Credentials{}, err
	}
	switch len(cs) {
	case 0:
		return garrison.Credentials{}, invalid("credentials %s not defined", name)
	case 1:
		return cs[0], nil
	}
	return garrison.Credentials{}, invalid("credentials %s exist for more than one forge type; set forge_type", name)
}

// handleUpdateEntity serves PUT /{Ent}/{id}.
func (s *Server) handleUpdateEntity(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		cur, err := s.entityOfKind(r, k)
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
		writeOK(w, entityResponse(v, e))
		return nil
	}
}

// entityUpdate validates p against the current entity and returns the change it makes.
func (s *Server) entityUpdate(ctx context.Context, cur garrison.Entity, p apiv1.UpdateEntityParams) (func(*garrison.Entity) error, error) {
	if p.AgentMode != nil {
		if err := checkAgentMode(*p.AgentMode); err != nil {
			return nil, err
		}
	}
	var credsID uint
	if p.CredentialsName != "" {
		c, err := s.resolveCredentials(ctx, p.CredentialsName, cur.ForgeType)
		if err != nil {
			return nil, err
		}
		if c.Endpoint != cur.Endpoint {
			return nil, invalid("endpoint mismatch")
		}
		credsID = c.ID
	}
	var balancer garrison.Balancer
	if p.PoolBalancerType != "" {
		b, err := garrison.ParseBalancer(p.PoolBalancerType)
		if err != nil {
			return nil, err
		}
		balancer = b
	}
	return func(e *garrison.Entity) error {
		if credsID != 0 {
			e.CredentialsID = credsID
		}
		if p.WebhookSecret != "" {
			e.WebhookSecret = p.WebhookSecret
		}
		if balancer != "" {
			e.Balancer = balancer
		}
		setIf(&e.AgentMode, p.AgentMode) // only false gets here
		return nil
	}, nil
}

// forgeCallTimeout bounds synchronous forge calls so the CLI's 30 s limit holds.
const forgeCallTimeout = 20 * time.Second

// handleDeleteEntity serves DELETE /{Ent}/{id}[?keepWebhook=]: 400 while pools exist;
// the managed webhook is removed best-effort unless keepWebhook.
func (s *Server) handleDeleteEntity(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		keep, err := queryBool(r, "keepWebhook")
		if err != nil {
			return err
		}
		pools, err := s.store.ListPools(ctx, store.PoolFilter{EntityID: e.ID})
		if err == nil && len(pools) > 0 {
			err = invalid("%s has pools defined; delete them first", k.noun)
		}
		if err != nil {
			return err
		}
		if k.webhook && !keep {
			s.removeWebhookBestEffort(ctx, e)
		}
		if err := s.store.DeleteEntity(ctx, e.ID); err != nil {
			return err
		}
		writeEmpty(w)
		return nil
	}
}

// removeWebhookBestEffort uninstalls e's managed webhook, logging failures.
func (s *Server) removeWebhookBestEffort(ctx context.Context, e garrison.Entity) {
	if !s.opts.EnableWebhookManagement || s.opts.Forge == nil {
		return
	}
	req, err := s.webhookRequest(ctx, false)
	if err != nil {
		return // no webhook URL: nothing of ours can be installed
	}
	ctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
	defer cancel()
	err = s.opts.Forge.UninstallWebhook(ctx, e, req)
	if err != nil && !errors.Is(err, garrison.ErrNotFound) {
		s.log.WarnContext(ctx, "removing webhook of deleted entity", "entity", e.ID, "err", err)
	}
}

// notifyEntity notifies every pool of an entity.
func (s *Server) notifyEntity(ctx context.Context, entityID string) {
	if s.opts.Notify == nil {
		return
	}
	pools, err := s.store.ListPools(ctx, store.PoolFilter{EntityID: entityID})
	if err != nil {
		s.log.WarnContext(ctx, "listing pools to notify", "entity", entityID, "err", err)
		return
	}
	ids := make([]string, len(pools))
	for i, p := range pools {
		ids[i] = p.ID
	}
	s.notify(ids...)
}

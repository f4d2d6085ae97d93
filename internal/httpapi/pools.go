package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// handleListAllPools serves GET /pools.
func (s *Server) handleListAllPools(w http.ResponseWriter, r *http.Request) error {
	return s.listPools(w, r, "")
}

// handleListEntityPools serves GET /{Ent}/{id}/pools.
func (s *Server) handleListEntityPools(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		return s.listPools(w, r, e.ID)
	}
}

// listPools answers the pools of the entity with entityID, or all pools for "".
func (s *Server) listPools(w http.ResponseWriter, r *http.Request, entityID string) error {
	pools, err := s.store.ListPools(r.Context(), store.PoolFilter{EntityID: entityID})
	if err != nil {
		return err
	}
	out, err := s.newLoader().poolViews(r.Context(), pools)
	if err != nil {
		return err
	}
	writeOK(w, out)
	return nil
}

// poolInPath loads the pool of the path's {poolID}; with k, the pool must also belong to
// the entity of the path's {id}. Bad UUIDs are 400, missing or foreign pools 404.
func (s *Server) poolInPath(r *http.Request, k *entityKind) (garrison.Pool, error) {
	var entityID string
	if k != nil {
		e, err := s.entityOfKind(r, *k)
		if err != nil {
			return garrison.Pool{}, err
		}
		entityID = e.ID
	}
	id, err := pathUUID(r, "poolID")
	if err != nil {
		return garrison.Pool{}, err
	}
	p, err := s.store.Pool(r.Context(), id)
	if err == nil && entityID != "" && p.EntityID != entityID {
		err = notFound("pool %s not found", id)
	}
	return p, err
}

// detailedPool renders p with its instances and extra specs, reporting the effective
// bootstrap timeout.
func (s *Server) detailedPool(ctx context.Context, p garrison.Pool) (apiv1.Pool, error) {
	l := s.newLoader()
	v, err := l.poolView(ctx, p)
	if err != nil {
		return v, err
	}
	is, err := s.store.ListInstances(ctx, store.InstanceFilter{PoolID: p.ID})
	if err != nil {
		return v, err
	}
	if v.Instances, err = l.instanceViews(ctx, is); err != nil {
		return v, err
	}
	v.ExtraSpecs = p.ExtraSpecs
	v.RunnerBootstrapTimeout = p.BootstrapTimeout()
	if p.TemplateID != 0 {
		t, err := s.store.Template(ctx, p.TemplateID)
		if err != nil && !errors.Is(err, garrison.ErrNotFound) {
			return v, err
		}
		v.TemplateName = t.Name
	}
	v.ProxyName = s.proxyName(ctx, p.ProxyID)
	return v, nil
}

// handleGetPool serves GET /pools/{poolID} and GET /{Ent}/{id}/pools/{poolID}.
func (s *Server) handleGetPool(k *entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.poolInPath(r, k)
		if err != nil {
			return err
		}
		v, err := s.detailedPool(r.Context(), p)
		if err != nil {
			return err
		}
		writeOK(w, v)
		return nil
	}
}

// handleCreatePool serves POST /{Ent}/{id}/pools.
func (s *Server) handleCreatePool(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		var p apiv1.CreatePoolParams
		if err := decode(w, r, &p); err != nil {
			return err
		}
		if err := s.checkPoolProxy(ctx, p.ProxyID); err != nil {
			return err
		}
		pool, err := s.newPool(e, p)
		if err == nil {
			pool.TemplateID, err = s.poolTemplate(ctx, e.ForgeType, pool.OSType, p.TemplateID)
		}
		if err == nil {
			pool, err = s.store.CreatePool(ctx, pool)
		}
		if err != nil {
			return err
		}
		s.notify(pool.ID)
		v, err := s.detailedPool(ctx, pool)
		if err != nil {
			return err
		}
		writeOK(w, v)
		return nil
	}
}

// poolValidationError wraps a pool create validation failure in the message format GARM
// clients see.
func poolValidationError(err error) error {
	return invalid("error appending tags to create pool params: failed to validate params (%q): invalid request",
		garrison.MessageOf(err))
}

// newPool validates a create request for entity e in the order of §3.6, after refusing
// the shell garrison cannot offer.
func (s *Server) newPool(e garrison.Entity, p apiv1.CreatePoolParams) (garrison.Pool, error) {
	if err := checkEnableShell(p.EnableShell); err != nil {
		return garrison.Pool{}, err
	}
	pool := garrison.Pool{
		EntityID: e.ID, EntityType: e.Type, ProviderName: p.ProviderName, RunnerPrefix: p.RunnerPrefix,
		MaxRunners: p.MaxRunners, MinIdleRunners: p.MinIdleRunners, Image: p.Image, Flavor: p.Flavor,
		OSType: p.OSType, OSArch: p.OSArch, Tags: garrison.TagsFromNames(p.Tags), Enabled: p.Enabled,
		RunnerBootstrapTimeout: p.RunnerBootstrapTimeout, ExtraSpecs: extraSpecs(p.ExtraSpecs),
		RunnerGroup: p.GitHubRunnerGroup, Priority: p.Priority,
	}
	if p.ProviderName != "" {
		if _, ok := s.providers[p.ProviderName]; !ok {
			return pool, invalid("no such provider %s", p.ProviderName)
		}
	}
	if err := pool.Validate(); err != nil {
		return pool, poolValidationError(err)
	}
	if pool.RunnerPrefix == "" {
		pool.RunnerPrefix = garrison.DefaultRunnerPrefix
	}
	if pool.RunnerBootstrapTimeout == 0 {
		pool.RunnerBootstrapTimeout = garrison.DefaultRunnerBootstrapTimeout
	}
	var err error
	pool.ProxyID, err = checkProxy(p.ProxyID)
	return pool, err
}

// extraSpecs returns raw unless it is empty or JSON null.
func extraSpecs(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}

// poolTemplate resolves the template of a pool of forge type forge and OS osType
// (rest-api-2 T-3, T-4): the given id after checking it fits, or with none (or 0) the
// system template of that forge and OS.
func (s *Server) poolTemplate(ctx context.Context, forge garrison.ForgeType, osType string, id *uint) (uint, error) {
	if id == nil || *id == 0 {
		ts, err := s.store.ListTemplates(ctx, store.TemplateFilter{Owner: garrison.SystemOwner, ForgeType: forge, OSType: osType})
		if err != nil {
			return 0, err
		}
		if len(ts) == 0 || osType == "" {
			return 0, invalid("failed to find suitable template: no template ID supplied and no default template can be found")
		}
		return ts[0].ID, nil
	}
	t, err := s.store.Template(ctx, *id)
	if errors.Is(err, garrison.ErrNotFound) {
		return 0, notFound("template %d not found", *id)
	}
	if err != nil {
		return 0, err
	}
	if t.OSType != osType {
		return 0, invalid("selected template OS type (%s) and pool OS type (%s) do not match", t.OSType, osType)
	}
	if t.ForgeType != forge {
		return 0, invalid("selected template forge type (%s) and pool forge type (%s) do not match", t.ForgeType, forge)
	}
	return t.ID, nil
}

// checkProxy returns the requested proxy id (absent: 0, none); the handlers check it
// exists with Server.checkPoolProxy (rest-api-2 PX-1).
func checkProxy(id *uint) (uint, error) {
	if id == nil {
		return 0, nil
	}
	return *id, nil
}

// handleUpdatePool serves PUT /pools/{poolID} and PUT /{Ent}/{id}/pools/{poolID}, with the
// same validation on both.
func (s *Server) handleUpdatePool(k *entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		cur, err := s.poolInPath(r, k)
		if err != nil {
			return err
		}
		var p apiv1.UpdatePoolParams
		if err := decode(w, r, &p); err != nil {
			return err
		}
		if err := s.checkPoolProxy(ctx, p.ProxyID); err != nil {
			return err
		}
		if p.TemplateID != nil && *p.TemplateID != 0 {
			e, err := s.store.Entity(ctx, cur.EntityID)
			if err != nil {
				return err
			}
			osType := cur.OSType
			if p.OSType != "" {
				osType = p.OSType
			}
			if _, err := s.poolTemplate(ctx, e.ForgeType, osType, p.TemplateID); err != nil {
				return err
			}
		}
		apply, err := poolUpdate(p)
		if err != nil {
			return err
		}
		pool, err := s.store.UpdatePool(ctx, cur.ID, apply)
		if err != nil {
			return err
		}
		s.notify(pool.ID)
		v, err := s.detailedPool(ctx, pool)
		if err != nil {
			return err
		}
		writeOK(w, v)
		return nil
	}
}

// poolUpdate validates what can be checked without the pool and returns the change; the
// result is validated as a whole inside the update. The store bumps the generation.
func poolUpdate(p apiv1.UpdatePoolParams) (func(*garrison.Pool) error, error) {
	if p.EnableShell != nil {
		if err := checkEnableShell(*p.EnableShell); err != nil {
			return nil, err
		}
	}
	if p.RunnerBootstrapTimeout != nil && *p.RunnerBootstrapTimeout == 0 {
		return nil, invalid("runner_bootstrap_timeout cannot be 0")
	}
	if p.OSType != "" && !garrison.ValidOSType(p.OSType) {
		return nil, invalid("invalid OS type %s", p.OSType)
	}
	if p.OSArch != "" && !garrison.ValidOSArch(p.OSArch) {
		return nil, invalid("invalid OS architecture %s", p.OSArch)
	}
	tags := garrison.NormalizeTags(p.Tags)
	if len(p.Tags) > 0 && len(tags) == 0 {
		return nil, invalid("missing tags")
	}
	proxyID, err := checkProxy(p.ProxyID)
	if err != nil {
		return nil, err
	}
	specs := extraSpecs(p.ExtraSpecs)
	return func(pool *garrison.Pool) error {
		setNonEmpty(&pool.RunnerPrefix, p.RunnerPrefix)
		setNonEmpty(&pool.Image, p.Image)
		setNonEmpty(&pool.Flavor, p.Flavor)
		setNonEmpty(&pool.OSType, p.OSType)
		setNonEmpty(&pool.OSArch, p.OSArch)
		if len(tags) > 0 {
			pool.Tags = garrison.TagsFromNames(tags)
		}
		setIf(&pool.Enabled, p.Enabled)
		setIf(&pool.MaxRunners, p.MaxRunners)
		setIf(&pool.MinIdleRunners, p.MinIdleRunners)
		setIf(&pool.RunnerBootstrapTimeout, p.RunnerBootstrapTimeout)
		setIf(&pool.EnableShell, p.EnableShell) // only false gets here
		setIf(&pool.RunnerGroup, p.GitHubRunnerGroup)
		setIf(&pool.Priority, p.Priority)
		if specs != nil {
			pool.ExtraSpecs = specs
		}
		if p.TemplateID != nil && *p.TemplateID != 0 { // checked by poolTemplate
			pool.TemplateID = *p.TemplateID
		}
		if p.ProxyID != nil {
			pool.ProxyID = proxyID
		}
		return pool.Validate()
	}, nil
}

// setNonEmpty sets *dst to v unless v is empty.
func setNonEmpty(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// handleDeletePool serves DELETE /pools/{poolID} and DELETE /{Ent}/{id}/pools/{poolID}:
// 404 for unknown pools on both, 400 while the pool has runners.
func (s *Server) handleDeletePool(k *entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		p, err := s.poolInPath(r, k)
		if err != nil {
			return err
		}
		is, err := s.store.ListInstances(ctx, store.InstanceFilter{PoolID: p.ID})
		if err == nil && len(is) > 0 {
			err = errPoolHasRunners
		}
		if err == nil {
			err = s.store.DeletePool(ctx, p.ID)
			if errors.Is(err, garrison.ErrInvalid) {
				err = errPoolHasRunners
			}
		}
		if err != nil {
			return err
		}
		s.notify(p.ID)
		writeEmpty(w)
		return nil
	}
}

var errPoolHasRunners = invalid("pool has runners")

// handleListPoolInstances serves GET /pools/{poolID}/instances[?outdatedOnly=].
func (s *Server) handleListPoolInstances(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := s.poolInPath(r, nil)
	if err != nil {
		return err
	}
	outdated, err := queryBool(r, "outdatedOnly")
	if err != nil {
		return err
	}
	is, err := s.store.ListInstances(ctx, store.InstanceFilter{PoolID: p.ID})
	if err != nil {
		return err
	}
	if outdated {
		kept := is[:0]
		for _, i := range is {
			if i.Generation < p.Generation {
				kept = append(kept, i)
			}
		}
		is = kept
	}
	l := s.newLoader()
	out, err := l.instanceViews(ctx, is)
	if err != nil {
		return err
	}
	writeOK(w, out)
	return nil
}

// handleRotateRunners replaces the pool's idle runners made from an older pool definition
// (garrison extension; `garrison pool runner rotate --outdated`).
func (s *Server) handleRotateRunners(w http.ResponseWriter, r *http.Request) error {
	if s.opts.RotateOutdated == nil {
		writeNotFound(w)
		return nil
	}
	p, err := s.poolInPath(r, nil)
	if err != nil {
		return err
	}
	n, err := s.opts.RotateOutdated(r.Context(), p.ID)
	if err != nil {
		return err
	}
	writeOK(w, apiv1.RotateRunnersResponse{Rotated: n})
	return nil
}

// handlePoolHealth serves GET /pools/{poolID}/health: garrison's own report on whether
// the pool is healthy, degraded (and why) or stopped.
func (s *Server) handlePoolHealth(w http.ResponseWriter, r *http.Request) error {
	p, err := s.poolInPath(r, nil)
	if err != nil {
		return err
	}
	v := apiv1.PoolHealth{PoolID: p.ID, State: apiv1.PoolStopped, Reason: "the pool reconciler is not running"}
	if s.opts.PoolManagers != nil {
		v.State, v.Reason = s.opts.PoolManagers.PoolHealth(p)
	}
	writeOK(w, v)
	return nil
}

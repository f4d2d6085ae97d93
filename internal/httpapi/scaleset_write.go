package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// handleCreateScaleSet serves POST /{Ent}/{id}/scalesets (rest-api-2 §2.3). Unlike GARM,
// every field is checked before the forge is called (R2-1), and a duplicate name in the
// entity's runner group is a 409 (R2-5).
func (s *Server) handleCreateScaleSet(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		var p apiv1.CreateScaleSetParams
		if err := decode(w, r, &p); err != nil {
			return err
		}
		ss, err := s.newScaleSet(ctx, e, p)
		if err != nil {
			return err
		}
		if ss, err = s.storeNewScaleSet(ctx, e, ss); err != nil {
			return err
		}
		s.notifyScaleSet(ss.ID)
		return s.writeDetailedScaleSet(w, ctx, ss)
	}
}

// newScaleSet applies the defaults and validates a create request for entity e.
func (s *Server) newScaleSet(ctx context.Context, e garrison.Entity, p apiv1.CreateScaleSetParams) (garrison.ScaleSet, error) {
	if e.ForgeType != garrison.GitHub {
		return garrison.ScaleSet{}, invalid("scale sets are only supported for github entities")
	}
	ss := garrison.ScaleSet{
		Name: p.Name, EntityID: e.ID, EntityType: e.Type, DisableUpdate: p.DisableUpdate,
		State: garrison.ScaleSetPendingCreate, RunnerPrefix: p.RunnerPrefix, ProviderName: p.ProviderName,
		Image: p.Image, Flavor: p.Flavor, OSType: p.OSType, OSArch: p.OSArch, MaxRunners: p.MaxRunners,
		MinIdleRunners: p.MinIdleRunners, Enabled: p.Enabled, RunnerBootstrapTimeout: p.RunnerBootstrapTimeout,
		ExtraSpecs: extraSpecs(p.ExtraSpecs), RunnerGroup: p.GitHubRunnerGroup,
		Tags: garrison.TagsFromNames(p.Labels),
	}
	if ss.RunnerPrefix == "" {
		ss.RunnerPrefix = garrison.DefaultRunnerPrefix
	}
	if ss.RunnerBootstrapTimeout == 0 {
		ss.RunnerBootstrapTimeout = garrison.DefaultRunnerBootstrapTimeout
	}
	if ss.RunnerGroup == "" {
		ss.RunnerGroup = garrison.DefaultRunnerGroup
	}
	if ss.OSType == "" {
		ss.OSType = garrison.OSLinux
	}
	if ss.OSArch == "" {
		ss.OSArch = garrison.ArchAMD64
	}
	if err := checkNewScaleSet(ss, p); err != nil {
		return ss, err
	}
	if _, ok := s.providers[ss.ProviderName]; !ok {
		return ss, invalid("no such provider %s", ss.ProviderName)
	}
	var err error
	// Scale sets are GitHub's: the template must be a GitHub one of the set's OS.
	if ss.TemplateID, err = s.poolTemplate(ctx, garrison.GitHub, ss.OSType, p.TemplateID); err != nil {
		return ss, err
	}
	if err := s.checkPoolProxy(ctx, p.ProxyID); err != nil {
		return ss, err
	}
	if ss.ProxyID, err = checkProxy(p.ProxyID); err != nil {
		return ss, err
	}
	return ss, s.checkScaleSetName(ctx, ss, 0)
}

// checkNewScaleSet checks the fields of a create in GARM's order, with its messages.
func checkNewScaleSet(ss garrison.ScaleSet, p apiv1.CreateScaleSetParams) error {
	switch {
	case ss.Name == "":
		return invalid("missing scale set name")
	case ss.ProviderName == "":
		return invalid("missing provider")
	case ss.MaxRunners == 0:
		return invalid("max_runners cannot be 0")
	case ss.MinIdleRunners > ss.MaxRunners:
		return invalid("min_idle_runners cannot be larger than max_runners")
	case ss.Image == "":
		return invalid("missing image")
	case ss.Flavor == "":
		return invalid("missing flavor")
	}
	if err := checkEnableShell(p.EnableShell); err != nil {
		return err
	}
	return ss.Validate()
}

// checkScaleSetName refuses a name another scale set of the entity has in the same runner
// group (409), before the forge is asked; the store's unique index is the final word.
func (s *Server) checkScaleSetName(ctx context.Context, ss garrison.ScaleSet, self uint) error {
	sets, err := s.store.ListScaleSets(ctx, store.ScaleSetFilter{EntityID: ss.EntityID})
	if err != nil {
		return err
	}
	for _, o := range sets {
		if o.ID != self && strings.EqualFold(o.Name, ss.Name) && strings.EqualFold(o.RunnerGroup, ss.RunnerGroup) {
			return garrison.Errorf(garrison.EConflict, "scale set %s already exists in runner group %s", ss.Name, ss.RunnerGroup)
		}
	}
	return nil
}

// storeNewScaleSet creates the scale set on the forge (when a ScaleSetForge is set) and
// stores it; if storing fails, the forge's scale set is deleted again.
func (s *Server) storeNewScaleSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (garrison.ScaleSet, error) {
	f := s.opts.ScaleSetForge
	if f != nil {
		fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
		id, err := f.CreateScaleSet(fctx, e, ss)
		cancel()
		if err != nil {
			return ss, forgeScaleSetError("create", err)
		}
		ss.ScaleSetID, ss.State = id, garrison.ScaleSetCreated
	}
	out, err := s.store.CreateScaleSet(ctx, ss)
	if err != nil && f != nil {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), forgeCallTimeout)
		if derr := f.DeleteScaleSet(fctx, e, ss); derr != nil && !errors.Is(derr, garrison.ErrNotFound) {
			s.log.WarnContext(ctx, "removing the forge scale set of a failed create", "scaleset", ss.Name, "err", derr)
		}
		cancel()
	}
	return out, err
}

// forgeScaleSetError keeps the classified forge errors a client can act on and makes the
// rest a 502-class failure with a message (rest-api-2 §2.3: forge failures SHOULD say so).
func forgeScaleSetError(op string, err error) error {
	switch garrison.CodeOf(err) {
	case garrison.EInvalid, garrison.EConflict, garrison.EUnauthorized:
		return garrison.Errorf(garrison.CodeOf(err), "failed to %s scale set in the forge: %s", op, garrison.MessageOf(err))
	}
	return garrison.Errorf(garrison.EUnavailable, "failed to %s scale set in the forge: %v", op, err)
}

// handleUpdateScaleSet serves PUT /scalesets/{scalesetID} (rest-api-2 §2.4). A change of
// name, runner group or disable_update is sent to the forge first; its failure aborts.
func (s *Server) handleUpdateScaleSet(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	cur, err := s.scaleSetInPath(r)
	if err != nil {
		return err
	}
	var p apiv1.UpdateScaleSetParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	if err := s.checkScaleSetRefs(ctx, cur, p); err != nil {
		return err
	}
	apply, err := scaleSetUpdate(p)
	if err != nil {
		return err
	}
	next := cur
	if err := apply(&next); err != nil {
		return err
	}
	if err := s.checkScaleSetName(ctx, next, cur.ID); err != nil {
		return err
	}
	if err := s.pushScaleSetUpdate(ctx, cur, next); err != nil {
		return err
	}
	ss, err := s.store.UpdateScaleSet(ctx, cur.ID, apply)
	if err != nil {
		return err
	}
	s.notifyScaleSet(ss.ID)
	return s.writeDetailedScaleSet(w, ctx, ss)
}

// pushScaleSetUpdate PATCHes the forge's scale set when a setting it keeps changed.
func (s *Server) pushScaleSetUpdate(ctx context.Context, cur, next garrison.ScaleSet) error {
	f := s.opts.ScaleSetForge
	if f == nil || cur.ScaleSetID == 0 {
		return nil
	}
	if cur.Name == next.Name && cur.RunnerGroup == next.RunnerGroup && cur.DisableUpdate == next.DisableUpdate {
		return nil
	}
	e, err := s.store.Entity(ctx, cur.EntityID)
	if err != nil {
		return err
	}
	fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
	defer cancel()
	if err := f.UpdateScaleSet(fctx, e, next); err != nil {
		return forgeScaleSetError("update", err)
	}
	return nil
}

// checkScaleSetRefs checks that the template and proxy an update names exist and fit.
func (s *Server) checkScaleSetRefs(ctx context.Context, cur garrison.ScaleSet, p apiv1.UpdateScaleSetParams) error {
	if err := s.checkPoolProxy(ctx, p.ProxyID); err != nil {
		return err
	}
	if p.TemplateID == nil || *p.TemplateID == 0 {
		return nil
	}
	osType := cur.OSType
	if p.OSType != "" {
		osType = p.OSType
	}
	_, err := s.poolTemplate(ctx, garrison.GitHub, osType, p.TemplateID)
	return err
}

// scaleSetUpdate validates what can be checked without the scale set and returns the
// change; the result is validated as a whole. state and extended_state are server-owned
// and ignored (R2-3).
func scaleSetUpdate(p apiv1.UpdateScaleSetParams) (func(*garrison.ScaleSet) error, error) {
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
	var templateID uint // checked against the store by checkScaleSetRefs
	if p.TemplateID != nil {
		templateID = *p.TemplateID
	}
	proxyID, err := checkProxy(p.ProxyID)
	if err != nil {
		return nil, err
	}
	specs := extraSpecs(p.ExtraSpecs)
	return func(ss *garrison.ScaleSet) error {
		setNonEmpty(&ss.Name, p.Name)
		setNonEmpty(&ss.Image, p.Image)
		setNonEmpty(&ss.Flavor, p.Flavor)
		setNonEmpty(&ss.OSType, p.OSType)
		setNonEmpty(&ss.OSArch, p.OSArch)
		setNonEmpty(&ss.RunnerPrefix, p.RunnerPrefix)
		setIf(&ss.DisableUpdate, p.DisableUpdate)
		setIf(&ss.Enabled, p.Enabled)
		setIf(&ss.MaxRunners, p.MaxRunners)
		setIf(&ss.MinIdleRunners, p.MinIdleRunners)
		setIf(&ss.RunnerBootstrapTimeout, p.RunnerBootstrapTimeout)
		setIf(&ss.EnableShell, p.EnableShell) // only false gets here
		if p.RunnerGroup != nil {
			setNonEmpty(&ss.RunnerGroup, *p.RunnerGroup)
		}
		if specs != nil {
			ss.ExtraSpecs = specs
		}
		if p.TemplateID != nil {
			ss.TemplateID = templateID
		}
		if p.ProxyID != nil {
			ss.ProxyID = proxyID
		}
		if ss.MinIdleRunners > ss.MaxRunners {
			return invalid("min_idle_runners cannot be larger than max_runners")
		}
		return ss.Validate()
	}, nil
}

// handleDeleteScaleSet serves DELETE /scalesets/{scalesetID} (rest-api-2 §2.5): unknown
// ids are 200; a scale set with runners or still enabled is 400; the forge's scale set is
// deleted first (gone already is fine, R2-2), and only then the row.
func (s *Server) handleDeleteScaleSet(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := scaleSetID(r)
	if err != nil {
		return err
	}
	ss, err := s.store.ScaleSet(ctx, id)
	if errors.Is(err, garrison.ErrNotFound) {
		writeEmpty(w)
		return nil
	}
	if err != nil {
		return err
	}
	is, err := s.store.ListInstances(ctx, store.InstanceFilter{ScaleSetID: ss.ID})
	switch {
	case err != nil:
		return err
	case len(is) > 0:
		return errScaleSetHasRunners
	case ss.Enabled:
		return invalid("scale set is enabled; disable it first")
	}
	if err := s.deleteForgeScaleSet(ctx, ss); err != nil {
		return err
	}
	if err := s.store.DeleteScaleSet(ctx, ss.ID); err != nil {
		if errors.Is(err, garrison.ErrInvalid) {
			return errScaleSetHasRunners
		}
		return err
	}
	s.notifyScaleSet(ss.ID)
	writeEmpty(w)
	return nil
}

var errScaleSetHasRunners = invalid("scale set has runners")

func (s *Server) deleteForgeScaleSet(ctx context.Context, ss garrison.ScaleSet) error {
	f := s.opts.ScaleSetForge
	if f == nil || ss.ScaleSetID == 0 {
		return nil
	}
	e, err := s.store.Entity(ctx, ss.EntityID)
	if err != nil {
		return err
	}
	fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
	defer cancel()
	err = f.DeleteScaleSet(fctx, e, ss)
	if err == nil || errors.Is(err, garrison.ErrNotFound) {
		return nil
	}
	return forgeScaleSetError("delete", err)
}

// removeScaleSetRunner removes a scale-set runner through the Actions service's agents
// API (SS-16); a runner already gone is fine.
func (s *Server) removeScaleSetRunner(ctx context.Context, i garrison.Instance) error {
	ss, err := s.store.ScaleSet(ctx, i.ScaleSetID)
	if err != nil {
		return err
	}
	e, err := s.store.Entity(ctx, ss.EntityID)
	if err != nil {
		return err
	}
	fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
	defer cancel()
	err = s.opts.ScaleSetForge.RemoveRunner(fctx, e, ss, i.AgentID)
	if err == nil || errors.Is(err, garrison.ErrNotFound) {
		return nil
	}
	return err
}

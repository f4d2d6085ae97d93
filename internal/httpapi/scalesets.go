package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// registerScaleSets registers the scale-set routes of rest-api-2 §2.1. The per-entity
// ones are registered by registerEntity through registerEntityScaleSets.
func (s *Server) registerScaleSets(m *http.ServeMux) {
	p := apiPrefix + "/scalesets"
	s.route(m, "GET "+p, s.handleListAllScaleSets)
	s.route(m, "GET "+p+"/{scalesetID}", s.handleGetScaleSet)
	s.route(m, "PUT "+p+"/{scalesetID}", s.handleUpdateScaleSet)
	s.route(m, "DELETE "+p+"/{scalesetID}", s.handleDeleteScaleSet)
	s.route(m, "GET "+p+"/{scalesetID}/instances", s.handleListScaleSetInstances)
}

func (s *Server) registerEntityScaleSets(m *http.ServeMux, k entityKind) {
	p := apiPrefix + "/" + k.segment + "/{id}/scalesets"
	s.route(m, "GET "+p, s.handleListEntityScaleSets(k))
	s.route(m, "POST "+p, s.handleCreateScaleSet(k))
}

// errBadScaleSetID is the 400 of a scale set id that is not a uint32 (C-4, observed).
var errBadScaleSetID = invalid("invalid request")

// scaleSetID parses the path's {scalesetID} as GARM does: a base-10 uint32.
func scaleSetID(r *http.Request) (uint, error) {
	n, err := strconv.ParseUint(r.PathValue("scalesetID"), 10, 32)
	if err != nil {
		return 0, errBadScaleSetID
	}
	return uint(n), nil
}

// scaleSetInPath loads the scale set of the path: 400 on a bad id, 404 when missing.
func (s *Server) scaleSetInPath(r *http.Request) (garrison.ScaleSet, error) {
	id, err := scaleSetID(r)
	if err != nil {
		return garrison.ScaleSet{}, err
	}
	ss, err := s.store.ScaleSet(r.Context(), id)
	if errors.Is(err, garrison.ErrNotFound) {
		err = notFound("error fetching scale set: error fetching scale set by ID: not found")
	}
	return ss, err
}

func (s *Server) notifyScaleSet(id uint) {
	if id != 0 && s.opts.NotifyScaleSet != nil {
		s.opts.NotifyScaleSet(id)
	}
}

// handleListAllScaleSets serves GET /scalesets.
func (s *Server) handleListAllScaleSets(w http.ResponseWriter, r *http.Request) error {
	return s.listScaleSets(w, r, "")
}

// handleListEntityScaleSets serves GET /{Ent}/{id}/scalesets.
func (s *Server) handleListEntityScaleSets(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		return s.listScaleSets(w, r, e.ID)
	}
}

func (s *Server) listScaleSets(w http.ResponseWriter, r *http.Request, entityID string) error {
	sets, err := s.store.ListScaleSets(r.Context(), store.ScaleSetFilter{EntityID: entityID})
	if err != nil {
		return err
	}
	l := s.newLoader()
	out := make([]apiv1.ScaleSet, 0, len(sets))
	for _, ss := range sets {
		v, err := l.scaleSetView(r.Context(), ss)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	writeOK(w, out)
	return nil
}

// detailedScaleSet renders ss with its instances and extra specs, reporting the effective
// bootstrap timeout.
func (s *Server) detailedScaleSet(ctx context.Context, ss garrison.ScaleSet) (apiv1.ScaleSet, error) {
	l := s.newLoader()
	v, err := l.scaleSetView(ctx, ss)
	if err != nil {
		return v, err
	}
	is, err := s.store.ListInstances(ctx, store.InstanceFilter{ScaleSetID: ss.ID})
	if err != nil {
		return v, err
	}
	if v.Instances, err = l.instanceViews(ctx, is); err != nil {
		return v, err
	}
	v.ExtraSpecs = ss.ExtraSpecs
	v.RunnerBootstrapTimeout = ss.BootstrapTimeout()
	return v, nil
}

func (s *Server) writeDetailedScaleSet(w http.ResponseWriter, ctx context.Context, ss garrison.ScaleSet) error {
	v, err := s.detailedScaleSet(ctx, ss)
	if err != nil {
		return err
	}
	writeOK(w, v)
	return nil
}

// handleGetScaleSet serves GET /scalesets/{scalesetID}.
func (s *Server) handleGetScaleSet(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.scaleSetInPath(r)
	if err != nil {
		return err
	}
	return s.writeDetailedScaleSet(w, r.Context(), ss)
}

// handleListScaleSetInstances serves GET /scalesets/{scalesetID}/instances[?outdatedOnly=]:
// an unknown scale set has no instances (200 [], observed).
func (s *Server) handleListScaleSetInstances(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := scaleSetID(r)
	if err != nil {
		return err
	}
	outdated, err := queryBool(r, "outdatedOnly")
	if err != nil {
		return err
	}
	ss, err := s.store.ScaleSet(ctx, id)
	if errors.Is(err, garrison.ErrNotFound) {
		writeOK(w, []apiv1.Instance{})
		return nil
	}
	if err != nil {
		return err
	}
	is, err := s.store.ListInstances(ctx, store.InstanceFilter{ScaleSetID: ss.ID})
	if err != nil {
		return err
	}
	if outdated {
		kept := is[:0]
		for _, i := range is {
			if i.Generation < ss.Generation {
				kept = append(kept, i)
			}
		}
		is = kept
	}
	out, err := s.newLoader().instanceViews(ctx, is)
	if err != nil {
		return err
	}
	writeOK(w, out)
	return nil
}

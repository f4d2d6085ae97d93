package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// handleListInstances serves GET /instances and GET /{Ent}/{id}/instances.
func (s *Server) handleListInstances(k *entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var f store.InstanceFilter
		if k != nil {
			e, err := s.entityOfKind(r, *k)
			if err != nil {
				return err
			}
			f.EntityID = e.ID
		}
		is, err := s.store.ListInstances(r.Context(), f)
		if err != nil {
			return err
		}
		out, err := s.newLoader().instanceViews(r.Context(), is)
		if err != nil {
			return err
		}
		writeOK(w, out)
		return nil
	}
}

// handleGetInstance serves GET /instances/{name}.
func (s *Server) handleGetInstance(w http.ResponseWriter, r *http.Request) error {
	i, err := s.store.Instance(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	v, err := s.newLoader().instanceView(r.Context(), i, true)
	if err != nil {
		return err
	}
	writeOK(w, v)
	return nil
}

// handleDeleteInstance serves DELETE /instances/{name}[?forceRemove=&bypassGHUnauthorized=].
// The forge runner is removed first when there is one (rest-api §3.7); the instance is
// then marked pending_delete (or pending_force_delete) for the reconciler to remove, with
// its agent id cleared so that the reconciler does not deregister the runner again. A
// history record (a retired runner, status deleted) is removed at once.
func (s *Server) handleDeleteInstance(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	force, err := queryBool(r, "forceRemove")
	var bypass bool
	if err == nil {
		bypass, err = queryBool(r, "bypassGHUnauthorized")
	}
	var i garrison.Instance
	if err == nil {
		i, err = s.store.Instance(ctx, r.PathValue("name"))
	}
	if err == nil && i.Status == garrison.InstanceDeleted {
		// A retired runner kept as history: nothing is left of it but the record.
		if err = s.store.DeleteInstance(ctx, i.Name); err != nil {
			return err
		}
		writeEmpty(w)
		return nil
	}
	var removed int64
	if err == nil {
		removed, err = s.checkDeletable(ctx, i, bypass)
	}
	if err == nil {
		err = s.markForDeletion(ctx, i.Name, force, removed)
	}
	if err != nil {
		return err
	}
	s.notify(i.PoolID)
	s.notifyScaleSet(i.ScaleSetID)
	writeEmpty(w)
	return nil
}

// checkDeletable refuses instances in states that cannot be deleted and removes the
// forge runner of the others. It returns the agent id of the runner it is done with
// (removed, already gone, or skipped with bypass), 0 when it did not touch the forge.
func (s *Server) checkDeletable(ctx context.Context, i garrison.Instance, bypass bool) (int64, error) {
	switch i.Status {
	case garrison.InstancePendingDelete, garrison.InstancePendingForceDelete,
		garrison.InstanceDeleting, garrison.InstanceDeleted:
		return 0, nil // already on its way out: the reconciler removes the runner
	case garrison.InstanceRunning, garrison.InstanceError:
	default:
		return 0, invalid("runner must be in running, error, pending_delete or pending_force_delete state (is %s)", i.Status)
	}
	if i.AgentID == 0 || (i.ScaleSetID == 0 && s.opts.Forge == nil) || (i.ScaleSetID != 0 && s.opts.ScaleSetForge == nil) {
		return 0, nil
	}
	if err := s.removeForgeRunner(ctx, i, bypass); err != nil {
		return 0, err
	}
	return i.AgentID, nil
}

// removeForgeRunner deletes i's forge runner. Not found is fine; unauthorized marks the
// entity's pool manager failed and is ignored only with bypass.
// A scale set's runner is removed through the Actions service (rest-api-2 SS-16).
func (s *Server) removeForgeRunner(ctx context.Context, i garrison.Instance, bypass bool) error {
	if i.ScaleSetID != 0 {
		return s.removeScaleSetRunner(ctx, i)
	}
	p, err := s.store.Pool(ctx, i.PoolID)
	if err != nil {
		return err
	}
	e, err := s.store.Entity(ctx, p.EntityID)
	if err != nil {
		return err
	}
	fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
	defer cancel()
	err = s.opts.Forge.RemoveRunner(fctx, e, i.AgentID)
	switch {
	case err == nil, errors.Is(err, garrison.ErrNotFound):
		return nil
	case errors.Is(err, garrison.ErrUnauthorized):
		s.markForgeUnauthorized(ctx, e)
		if bypass {
			return nil
		}
	}
	return err
}

// markForgeUnauthorized records that the forge refused e's credentials.
func (s *Server) markForgeUnauthorized(ctx context.Context, e garrison.Entity) {
	const reason = "the forge refused the credentials (401) while removing a runner"
	if s.opts.PoolManagers != nil {
		s.opts.PoolManagers.SetFailed(e.ID, reason)
	}
	ev := garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelError, Message: reason}
	if err := s.store.AddEntityEvent(ctx, e.ID, ev); err != nil {
		s.log.WarnContext(ctx, "recording entity event", "entity", e.ID, "err", err)
	}
}

// markForDeletion moves the instance to pending_delete, or pending_force_delete when
// force; an instance already being deleted is left as it is (but may be forced). When
// the call is done with the forge runner of agent id removed, the instance forgets it.
func (s *Server) markForDeletion(ctx context.Context, name string, force bool, removed int64) error {
	next := garrison.InstancePendingDelete
	if force {
		next = garrison.InstancePendingForceDelete
	}
	_, err := s.store.UpdateInstance(ctx, name, func(i *garrison.Instance) error {
		if removed != 0 && i.AgentID == removed {
			i.AgentID, i.JITConfig = 0, nil
		}
		switch {
		case i.Status.Deleting() && !(force && i.Status == garrison.InstancePendingDelete):
			return nil
		case !i.Status.CanTransition(next):
			return invalid("runner cannot move from %s to %s", i.Status, next)
		}
		i.Status = next
		return nil
	})
	return err
}

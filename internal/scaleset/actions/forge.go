package actions

import (
	"context"
	"errors"

	"github.com/garrison-ci/garrison"
	fss "github.com/garrison-ci/garrison/internal/forge/scaleset"
)

// The REST API's scale-set calls (httpapi.ScaleSetForge).

// runnerGroupID is the forge id of the scale set's runner group: repositories have only
// the default group (id 1, as GARM does); organizations and enterprises look it up.
func (h *Hub) runnerGroupID(ctx context.Context, c *fss.Client, e garrison.Entity, name string) (int64, error) {
	if e.Type == garrison.Repository {
		return 1, nil
	}
	g, err := c.RunnerGroup(ctx, name)
	if err != nil {
		return 0, err
	}
	return g.ID, nil
}

// forgeSet returns the entity's client and the forge's form of ss (its runner group resolved to an id).
func (h *Hub) forgeSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (*fss.Client, fss.ScaleSet, error) {
	c, err := h.client(ctx, e)
	if err != nil {
		return nil, fss.ScaleSet{}, err
	}
	gid, err := h.runnerGroupID(ctx, c, e, ss.RunnerGroup)
	if err != nil {
		return nil, fss.ScaleSet{}, err
	}
	return c, fss.ScaleSet{Name: ss.Name, RunnerGroupID: gid, Labels: ss.Labels(), DisableUpdate: ss.DisableUpdate}, nil
}

// CreateScaleSet creates the scale set on the forge and returns its id.
func (h *Hub) CreateScaleSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (int, error) {
	c, want, err := h.forgeSet(ctx, e, ss)
	if err != nil {
		return 0, err
	}
	got, err := c.CreateScaleSet(ctx, want)
	if err != nil {
		return 0, err
	}
	return int(got.ID), nil
}

// UpdateScaleSet sends the scale set's name, runner group, labels and update setting.
func (h *Hub) UpdateScaleSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) error {
	c, want, err := h.forgeSet(ctx, e, ss)
	if err != nil {
		return err
	}
	_, err = c.UpdateScaleSet(ctx, int64(ss.ScaleSetID), want)
	return err
}

// DeleteScaleSet deletes the forge's scale set; garrison.ErrNotFound when it is gone.
func (h *Hub) DeleteScaleSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) error {
	c, err := h.client(ctx, e)
	if err != nil {
		return err
	}
	return c.DeleteScaleSet(ctx, int64(ss.ScaleSetID))
}

// RemoveRunner removes a scale-set runner through the agents API.
func (h *Hub) RemoveRunner(ctx context.Context, e garrison.Entity, _ garrison.ScaleSet, agentID int64) error {
	c, err := h.client(ctx, e)
	if err != nil {
		return err
	}
	return mapErr(c.RemoveRunner(ctx, agentID))
}

// ScaleSetExists implements scaleset.Forge: whether the service still has the scale set.
func (h *Hub) ScaleSetExists(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (bool, error) {
	c, err := h.client(ctx, e)
	if err != nil {
		return false, err
	}
	_, err = c.ScaleSet(ctx, int64(ss.ScaleSetID))
	if errors.Is(err, garrison.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// RecreateScaleSet implements scaleset.Forge, for a scale set the service lost: the id
// of the scale set of the same name in the same runner group when there is one (made
// meanwhile), else of one created again with the scale set's name, labels and group.
func (h *Hub) RecreateScaleSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (int, error) {
	c, want, err := h.forgeSet(ctx, e, ss)
	if err != nil {
		return 0, err
	}
	found, err := c.ScaleSetByName(ctx, want.RunnerGroupID, ss.Name)
	switch {
	case err == nil:
		return int(found.ID), nil
	case !errors.Is(err, garrison.ErrNotFound):
		return 0, err
	}
	got, err := c.CreateScaleSet(ctx, want)
	if err != nil {
		return 0, err
	}
	return int(got.ID), nil
}

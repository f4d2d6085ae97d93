package scaleset

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
)

func (c *Controller) setChecked(id uint, v bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checked[id] = v
}

func (c *Controller) isChecked(id uint) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checked[id]
}

// checkScaleSet makes sure the service still has the scale set, once per process and
// again after a session was refused as not found. A scale set the service lost (GitHub
// answers 404) is made again with the same name, labels and runner group and its new id
// stored; one that cannot be made again is put into the error state with the reason in
// extended_state, and the error returned: the queue retries with its backoff. A check
// that cannot reach the service changes nothing and is retried the same way.
func (c *Controller) checkScaleSet(ctx context.Context, ss garrison.ScaleSet, e garrison.Entity) (garrison.ScaleSet, error) {
	if c.o.Forge == nil || c.isChecked(ss.ID) {
		return ss, nil
	}
	exists, err := c.o.Forge.ScaleSetExists(ctx, e, ss)
	if err != nil {
		return ss, fmt.Errorf("scaleset %d: check it on the Actions service: %w", ss.ID, err)
	}
	if exists {
		c.setChecked(ss.ID, true)
		if ss.State != garrison.ScaleSetError {
			return ss, nil
		}
		return c.setState(ctx, ss, ss.ScaleSetID, garrison.ScaleSetCreated, "") // recovered
	}
	c.log.Warn("scaleset: the Actions service has lost the scale set; making it again", c.attrs(ss, slog.Int("scale_set_id", ss.ScaleSetID))...)
	id, err := c.o.Forge.RecreateScaleSet(ctx, e, ss)
	if err != nil {
		reason := fmt.Sprintf("the scale set %d is gone from the Actions service and could not be made again: %v", ss.ScaleSetID, err)
		if _, serr := c.setState(ctx, ss, ss.ScaleSetID, garrison.ScaleSetError, reason); serr != nil {
			c.log.Warn("scaleset: recording the error state", c.attrs(ss, slog.Any("err", serr))...)
		}
		return ss, fmt.Errorf("scaleset %d: %s", ss.ID, reason)
	}
	if os := c.forget(ss.ID); os != nil { // a session of the lost scale set is of no use; the claim stays
		c.deleteForgeSession(ctx, os)
	}
	if ss, err = c.setState(ctx, ss, id, garrison.ScaleSetCreated, ""); err != nil {
		return ss, err
	}
	c.setChecked(ss.ID, true)
	c.log.Info("scaleset: scale set made again on the Actions service", c.attrs(ss, slog.Int("scale_set_id", id))...)
	return ss, nil
}

// setState stores the scale set's forge id, state and reason when they changed.
func (c *Controller) setState(ctx context.Context, ss garrison.ScaleSet, forgeID int, st garrison.ScaleSetState, reason string) (garrison.ScaleSet, error) {
	if ss.ScaleSetID == forgeID && ss.State == st && ss.ExtendedState == reason {
		return ss, nil
	}
	return c.o.Store.UpdateScaleSet(ctx, ss.ID, func(s *garrison.ScaleSet) error {
		s.ScaleSetID, s.State, s.ExtendedState = forgeID, st, reason
		return nil
	})
}

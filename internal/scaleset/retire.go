package scaleset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison"
)

// retireDead marks for deletion the scale set's runners that will never take a job, as
// a pool's are: one whose runner failed to install, and one still booting past the scale
// set's bootstrap timeout (its boot died, say while garrison was down and could not
// serve its install script). Counted as live, such a runner would hold its slot forever.
// It returns insts with the retired ones marked, and hands those to the instances
// controller.
func (c *Controller) retireDead(ctx context.Context, ss garrison.ScaleSet, insts []garrison.Instance) []garrison.Instance {
	var retired []string
	for i, in := range insts {
		why := deadReason(ss, in, c.o.Now())
		if why == "" {
			continue
		}
		got, err := c.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
			if deadReason(ss, *i, c.o.Now()) == "" {
				return errMovedOn
			}
			i.Status, i.RunnerStatus, i.ProviderFault = garrison.InstancePendingDelete, garrison.RunnerFailed, []byte(why)
			return nil
		})
		if errors.Is(err, errMovedOn) || errors.Is(err, garrison.ErrNotFound) {
			continue
		}
		if err != nil {
			c.log.Warn("scaleset: retiring a dead runner", c.attrs(ss, slog.String("instance", in.Name), slog.Any("err", err))...)
			continue
		}
		insts[i] = got
		retired = append(retired, in.Name)
		ev := garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelWarning, Message: "marked for deletion: " + why}
		if err := c.o.Store.AddInstanceEvent(ctx, in.Name, ev); err != nil {
			c.log.Warn("scaleset: recording a runner event", c.attrs(ss, slog.String("instance", in.Name), slog.Any("err", err))...)
		}
	}
	if len(retired) > 0 {
		c.log.Info("scaleset: dead runners retired", c.attrs(ss, slog.Any("instances", retired))...)
		c.o.OnInstances(retired...)
	}
	return insts
}

// deadReason says why a running instance's runner will never take a job, or "".
func deadReason(ss garrison.ScaleSet, in garrison.Instance, now time.Time) string {
	if in.Status != garrison.InstanceRunning {
		return ""
	}
	switch in.RunnerStatus {
	case garrison.RunnerFailed:
		return "runner failed to install"
	case "", garrison.RunnerPending, garrison.RunnerInstalling:
		limit := time.Duration(ss.BootstrapTimeout()) * time.Minute
		if now.Sub(in.UpdatedAt) >= limit {
			return fmt.Sprintf("runner did not come up within the bootstrap timeout (%d minutes)", ss.BootstrapTimeout())
		}
	}
	return ""
}

package scaleset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
)

// process handles a message's job events (forge-api §8.4): JobAvailable jobs are acquired
// (GHES), JobStarted marks its runner busy so scale-down spares it, JobCompleted sends its
// runner away (ephemeral runners serve one job). Scaling itself follows the statistics,
// never the events: a batch is truncated at 50.
func (c *Controller) process(ctx context.Context, ss garrison.ScaleSet, os *openSession, msg *Message) error {
	var available []int64
	for _, j := range msg.Jobs {
		if j.Type == JobAvailable {
			available = append(available, j.RunnerRequestID)
		}
	}
	if len(available) > 0 {
		err := c.withToken(ctx, ss, os, func(s Session) error {
			_, err := os.svc.AcquireJobs(ctx, ss.ScaleSetID, s, available)
			return err
		})
		if err != nil {
			return fmt.Errorf("scaleset %d: acquire jobs: %w", ss.ID, err)
		}
	}
	c.recordJobs(ctx, ss, msg.Jobs)
	var changed []string
	for _, j := range msg.Jobs {
		var err error
		var name string
		switch j.Type {
		case JobStarted:
			name, err = c.runnerBusy(ctx, ss, j)
		case JobCompleted:
			name, err = c.runnerDone(ctx, ss, j)
		}
		if err != nil {
			return err
		}
		if name != "" {
			changed = append(changed, name)
		}
	}
	if len(changed) > 0 {
		c.o.OnInstances(changed...)
	}
	return nil
}

// runnerBusy marks the instance of a JobStarted runner active.
func (c *Controller) runnerBusy(ctx context.Context, ss garrison.ScaleSet, j JobMessage) (string, error) {
	return c.updateRunner(ctx, ss, j.RunnerName, func(in *garrison.Instance) bool {
		if !in.RunnerStatus.CanTransition(garrison.RunnerActive) {
			return false
		}
		in.RunnerStatus = garrison.RunnerActive
		return true
	}, "runner started job "+j.JobID)
}

// runnerDone marks the instance of a JobCompleted runner for deletion. A JobCompleted
// without a runner (a job canceled before any runner took it) concerns no instance.
func (c *Controller) runnerDone(ctx context.Context, ss garrison.ScaleSet, j JobMessage) (string, error) {
	return c.updateRunner(ctx, ss, j.RunnerName, func(in *garrison.Instance) bool {
		if in.Status.Deleting() {
			return false
		}
		// Scale-set runners are ephemeral: the service removed the runner with its job, so
		// the instance is deleted without deregistering it again.
		in.RunnerStatus = garrison.RunnerTerminated
		in.Status, in.AgentID = garrison.InstancePendingDelete, 0
		return true
	}, fmt.Sprintf("runner finished job %s (%s)", j.JobID, j.Result))
}

// updateRunner applies fn to the scale set's instance named name, if there is one, and
// records why. It returns the name when the instance changed.
func (c *Controller) updateRunner(ctx context.Context, ss garrison.ScaleSet, name string, fn func(*garrison.Instance) bool, why string) (string, error) {
	if name == "" {
		return "", nil
	}
	changed := false
	_, err := c.o.Store.UpdateInstance(ctx, name, func(in *garrison.Instance) error {
		if in.ScaleSetID != ss.ID {
			return errNotOurs
		}
		changed = fn(in)
		return nil
	})
	switch {
	case errors.Is(err, errNotOurs), errors.Is(err, garrison.ErrNotFound):
		return "", nil // a runner garrison does not know (any more)
	case err != nil:
		return "", fmt.Errorf("scaleset %d: update runner %s: %w", ss.ID, name, err)
	case !changed:
		return "", nil
	}
	ev := garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: why}
	if err := c.o.Store.AddInstanceEvent(ctx, name, ev); err != nil {
		c.log.Warn("scaleset: recording a runner event", c.attrs(ss, slog.String("instance", name), slog.Any("err", err))...)
	}
	return name, nil
}

var errNotOurs = errors.New("the runner belongs to another pool or scale set")

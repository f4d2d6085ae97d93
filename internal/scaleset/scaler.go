package scaleset

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// scale brings the scale set's runners to its target (forge-api §8.4, SS-9): target =
// min(min_idle_runners + desired_runner_count, max_runners), counting every instance not
// on its way out. Below target (and when allowUp) it registers JIT runners and stores
// pending_create instances; above, it removes idle runners only: a runner running a job
// (runner status active) is never scaled down, nor one still booting.
func (c *Controller) scale(ctx context.Context, ss garrison.ScaleSet, svc Service, allowUp bool) error {
	insts, err := c.o.Store.ListInstances(ctx, store.InstanceFilter{ScaleSetID: ss.ID})
	if err != nil {
		return err
	}
	insts = c.retireDead(ctx, ss, insts)
	var live []garrison.Instance
	var pending []string // instances with a provider step to take
	for _, in := range insts {
		if !in.Status.Deleting() {
			live = append(live, in)
		}
		if in.Status != garrison.InstanceRunning && in.Status != garrison.InstanceStopped {
			pending = append(pending, in.Name)
		}
	}
	if len(pending) > 0 && c.firstLook(ss.ID) {
		// Once per scale set and process: what an earlier process left half done. Later
		// runners go to the instance controller as they are made or marked.
		c.o.OnInstances(pending...)
	}
	target := ss.TargetRunners()
	c.o.Metrics.runners(ss.Name, target, len(live))
	switch {
	case len(live) < target && allowUp && ss.ScaleSetID != 0:
		return c.scaleUp(ctx, ss, svc, target-len(live))
	case len(live) > target:
		return c.scaleDown(ctx, ss, svc, live, len(live)-target)
	}
	return nil
}

// scaleUpParallel bounds the runners one scale-up registers at once: a burst is served
// in a few round trips, not one per runner.
const scaleUpParallel = 8

// scaleUp makes n new runners, up to scaleUpParallel at a time; each goes to the instance
// controller as soon as it is stored.
func (c *Controller) scaleUp(ctx context.Context, ss garrison.ScaleSet, svc Service, n int) error {
	ctrl, err := c.o.Store.Controller(ctx)
	if err != nil {
		return err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		made int
	)
	slots := make(chan struct{}, scaleUpParallel)
	for range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			name, err := c.newRunner(ctx, ss, ctrl, svc)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			made++
			c.o.OnInstances(name)
		})
	}
	wg.Wait()
	if made > 0 {
		c.log.Info("scaleset: runners requested", c.attrs(ss, slog.Int("count", made))...)
	}
	return errors.Join(errs...)
}

// newRunner stores a pending_create instance, registers its JIT runner and records the
// runner on it (SS-10). The instance is stored first, as a pool's is, so that a crash
// between registering and recording leaves a record behind, never a runner on the forge
// that nothing knows of: the instances controller drops a scale-set request with no JIT
// configuration, removing the forge runner of its name if the registration went through.
// A registration the service refuses is dropped the same way.
func (c *Controller) newRunner(ctx context.Context, ss garrison.ScaleSet, ctrl garrison.Controller, svc Service) (string, error) {
	in := garrison.Instance{
		Name: runnerName(ss.RunnerPrefix), ScaleSetID: ss.ID, ProviderName: ss.ProviderName,
		OSType: ss.OSType, OSArch: ss.OSArch, Status: garrison.InstancePendingCreate,
		RunnerStatus: garrison.RunnerPending, RunnerGroup: ss.RunnerGroup,
		Generation: ss.Generation, MetadataURL: ctrl.MetadataURL, CallbackURL: ctrl.CallbackURL,
	}
	if _, err := c.o.Store.CreateInstance(ctx, in); err != nil {
		return "", fmt.Errorf("scaleset %d: store runner %s: %w", ss.ID, in.Name, err)
	}
	jit, err := svc.GenerateJITConfig(ctx, ss.ScaleSetID, in.Name)
	if err != nil {
		c.o.OnInstances(in.Name) // dropped
		return "", fmt.Errorf("scaleset %d: generate JIT config: %w", ss.ID, err)
	}
	_, err = c.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
		if i.Status != garrison.InstancePendingCreate || len(i.JITConfig) > 0 {
			return errMovedOn
		}
		i.JITConfig, i.AgentID = jit.Files, jit.RunnerID
		return nil
	})
	if err != nil {
		if rerr := svc.RemoveRunner(ctx, jit.RunnerID); rerr != nil && !errors.Is(rerr, garrison.ErrNotFound) {
			c.log.Warn("scaleset: removing the runner of an instance not recorded", c.attrs(ss, slog.Any("err", rerr))...)
		}
		return "", fmt.Errorf("scaleset %d: record runner %s: %w", ss.ID, in.Name, err)
	}
	return in.Name, nil
}

var errMovedOn = errors.New("the instance moved on while its runner was registered")

// scaleDown removes up to n idle runners: deregistered from the service first (a runner
// that took a job meanwhile refuses, and stays), then marked for deletion.
func (c *Controller) scaleDown(ctx context.Context, ss garrison.ScaleSet, svc Service, live []garrison.Instance, n int) error {
	var removed []string
	defer func() {
		if len(removed) > 0 {
			c.o.OnInstances(removed...)
		}
	}()
	for _, in := range live {
		if len(removed) == n {
			break
		}
		if in.Status != garrison.InstanceRunning || in.RunnerStatus == garrison.RunnerActive || in.RunnerStatus == garrison.RunnerTerminated {
			continue
		}
		if in.AgentID != 0 {
			err := svc.RemoveRunner(ctx, in.AgentID)
			switch {
			case errors.Is(err, ErrJobStillRunning):
				continue // it took a job: busy runners are never scaled down
			case err != nil && !errors.Is(err, garrison.ErrNotFound):
				return fmt.Errorf("scaleset %d: remove runner %s: %w", ss.ID, in.Name, err)
			}
		}
		_, err := c.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
			if i.RunnerStatus == garrison.RunnerActive || i.Status.Deleting() {
				return errBusy
			}
			i.Status, i.AgentID = garrison.InstancePendingDelete, 0
			return nil
		})
		if errors.Is(err, errBusy) {
			continue
		}
		if err != nil {
			return err
		}
		removed = append(removed, in.Name)
	}
	if len(removed) > 0 {
		c.log.Info("scaleset: idle runners removed", c.attrs(ss, slog.Int("count", len(removed)))...)
	}
	return nil
}

var errBusy = errors.New("the runner took a job meanwhile")

// runnerName is <prefix>-<12 random lowercase letters and digits>, as pool runners are named.
func runnerName(prefix string) string {
	if prefix == "" {
		prefix = garrison.DefaultRunnerPrefix
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return strings.ToLower(prefix) + "-" + string(b)
}

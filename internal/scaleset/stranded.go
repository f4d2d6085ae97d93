package scaleset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Runners stranded by an outage of the Actions service: the service shows them offline
// (or has lost them) while their instances run and garrison believes them idle. They
// never take a job again, yet they count towards the scale set's runners, so the scale
// set stays at its size while jobs wait (ARC and GARM on 2026-08-06). As pools do
// (internal/reconcile/stranded.go), a listener recycles them once seen so for
// Options.StrandedAfter plus a jitter (garrison.StrandedThreshold), at most
// Options.StrandedPerPass per scale set and pass, never one the service or garrison says
// is busy; the service is asked at most every tenth of StrandedAfter per scale set.

// strandedState is what a listener saw of its scale set's runners (guarded by Controller.mu).
type strandedState struct {
	checkedAt time.Time
	offline   map[string]time.Time // instance name → first seen offline
}

// strandedDue reports whether the scale set's runners are to be looked at now.
func (c *Controller) strandedDue(id uint, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stranded[id]
	if st == nil {
		st = &strandedState{offline: map[string]time.Time{}}
		c.stranded[id] = st
	}
	if !st.checkedAt.IsZero() && now.Sub(st.checkedAt) < c.o.StrandedAfter/10 {
		return false
	}
	st.checkedAt = now
	return true
}

// seenOffline records the names seen offline in this pass and returns since when each
// has been; names not seen offline are forgotten.
func (c *Controller) seenOffline(id uint, names []string, now time.Time) map[string]time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stranded[id]
	next := make(map[string]time.Time, len(names))
	for _, n := range names {
		since, ok := st.offline[n]
		if !ok {
			since = now
		}
		next[n] = since
	}
	st.offline = next
	return next
}

// recycleStranded marks for deletion the scale set's idle runners that the service has
// shown offline, or not at all, for longer than their threshold. It returns the names
// marked.
func (c *Controller) recycleStranded(ctx context.Context, ss garrison.ScaleSet, svc Service) ([]string, error) {
	now := c.o.Now()
	if !c.strandedDue(ss.ID, now) {
		return nil, nil
	}
	insts, err := c.o.Store.ListInstances(ctx, store.InstanceFilter{ScaleSetID: ss.ID})
	if err != nil {
		return nil, err
	}
	var offline []string
	candidates := map[string]garrison.Instance{}
	for _, in := range insts {
		if in.Status != garrison.InstanceRunning || in.RunnerStatus != garrison.RunnerIdle || in.AgentID == 0 {
			continue
		}
		rn, err := svc.Runner(ctx, in.AgentID)
		switch {
		case errors.Is(err, garrison.ErrNotFound):
		case err != nil:
			return nil, fmt.Errorf("scaleset %d: runner %s: %w", ss.ID, in.Name, err)
		case rn.Online:
			continue
		case rn.Busy:
			offline = append(offline, in.Name) // remembered, never recycled while busy
			continue
		}
		offline = append(offline, in.Name)
		candidates[in.Name] = in
	}
	since := c.seenOffline(ss.ID, offline, now)
	var marked []string
	for _, name := range offline {
		in, ok := candidates[name]
		if !ok || len(marked) >= c.o.StrandedPerPass || now.Sub(since[name]) < garrison.StrandedThreshold(name, c.o.StrandedAfter) {
			continue
		}
		done, err := c.recycle(ctx, ss, svc, in, now.Sub(since[name]))
		if err != nil {
			return marked, err
		}
		if done {
			marked = append(marked, name)
		}
	}
	return marked, nil
}

// recycle deregisters a stranded runner and marks its instance for deletion; false when
// it turned out busy.
func (c *Controller) recycle(ctx context.Context, ss garrison.ScaleSet, svc Service, in garrison.Instance, offlineFor time.Duration) (bool, error) {
	err := svc.RemoveRunner(ctx, in.AgentID)
	switch {
	case errors.Is(err, ErrJobStillRunning):
		return false, nil
	case err != nil && !errors.Is(err, garrison.ErrNotFound):
		return false, fmt.Errorf("scaleset %d: remove stranded runner %s: %w", ss.ID, in.Name, err)
	}
	_, err = c.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
		if i.RunnerStatus != garrison.RunnerIdle || i.Status.Deleting() {
			return errBusy
		}
		i.Status, i.AgentID = garrison.InstancePendingDelete, 0
		return nil
	})
	if errors.Is(err, errBusy) || errors.Is(err, garrison.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	why := fmt.Sprintf("stranded: offline on the Actions service for %v while its instance runs; recycled", offlineFor.Round(time.Second))
	if err := c.o.Store.AddInstanceEvent(ctx, in.Name, garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelWarning, Message: why}); err != nil {
		c.log.Warn("scaleset: recording a runner event", c.attrs(ss, slog.String("instance", in.Name), slog.Any("err", err))...)
	}
	c.log.Info("scaleset: stranded runner recycled", c.attrs(ss, slog.String("instance", in.Name), slog.Duration("offline_for", offlineFor))...)
	return true, nil
}

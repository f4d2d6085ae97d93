package scaleset_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// refusingForge is the hub whose first recreations fail, as when the runner group is gone.
type refusingForge struct {
	scaleset.Forge
	refuse atomic.Int32
}

func (f *refusingForge) RecreateScaleSet(ctx context.Context, e garrison.Entity, ss garrison.ScaleSet) (int, error) {
	if f.refuse.Add(-1) >= 0 {
		return 0, garrison.Errorf(garrison.EUnprocessable, "runner group %q not found", ss.RunnerGroup)
	}
	return f.Forge.RecreateScaleSet(ctx, e, ss)
}

func (s *simEnv) checkedController(forge scaleset.Forge) *scaleset.Controller {
	return scaleset.New(scaleset.Options{Store: s.st, Services: s.hub, Forge: forge, Owner: "replica-a",
		ClaimTTL: time.Hour, ConflictHold: time.Millisecond,
		Backoff: workqueue.Backoff{Base: time.Millisecond, Max: 10 * time.Millisecond}})
}

func (s *simEnv) stored() garrison.ScaleSet {
	s.t.Helper()
	ss, err := s.st.ScaleSet(s.t.Context(), s.ss.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	return ss
}

// TestSimLostScaleSetRecreated: GitHub loses the scale set, before the listener starts
// or while it listens. The listener makes it again (same name, labels, runner group),
// stores the new id and serves jobs on it.
func TestSimLostScaleSetRecreated(t *testing.T) {
	for _, tc := range []struct {
		name        string
		beforeStart bool
	}{
		{"lost before start", true},
		{"lost while listening", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimEnv(t, false, 2, 0)
			old := s.ss.ScaleSetID
			c := s.checkedController(s.hub)
			if !tc.beforeStart {
				s.until(c, 5, "session", func() bool { return s.sim.ScaleSets()[0].SessionOwner == "replica-a" })
			}
			if err := s.hub.DeleteScaleSet(t.Context(), s.e, s.ss); err != nil {
				t.Fatal(err)
			}
			s.until(c, 20, "made again", func() bool {
				sets := s.sim.ScaleSets()
				return len(sets) == 1 && sets[0].SessionOwner == "replica-a"
			})
			got := s.stored()
			if got.ScaleSetID == old || int64(got.ScaleSetID) != s.sim.ScaleSets()[0].ID || got.State != garrison.ScaleSetCreated {
				t.Fatalf("stored %d (%s), was %d, service has %+v", got.ScaleSetID, got.State, old, s.sim.ScaleSets())
			}
			if sim := s.sim.ScaleSets()[0]; sim.Name != s.ss.Name {
				t.Fatalf("made again as %+v", sim)
			}
			s.ss = got
			s.queue(2)
			s.until(c, 200, "jobs served on the new scale set", func() bool { return s.completed() == 2 })
		})
	}
}

// TestSimLostScaleSetNotRecreatable: a scale set that cannot be made again is in the
// error state with the reason (extended_state) and retried; once it can be made again
// it is back to created and listened to.
func TestSimLostScaleSetNotRecreatable(t *testing.T) {
	s := newSimEnv(t, false, 2, 0)
	forge := &refusingForge{Forge: s.hub}
	forge.refuse.Store(3)
	c := s.checkedController(forge)
	if err := s.hub.DeleteScaleSet(t.Context(), s.e, s.ss); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(t.Context(), s.ss.ID); err == nil {
		t.Fatal("step succeeded with the scale set gone")
	}
	got := s.stored()
	if got.State != garrison.ScaleSetError || !strings.Contains(got.ExtendedState, "runner group") {
		t.Fatalf("state %s %q, want error with the reason", got.State, got.ExtendedState)
	}
	failures := 0
	for forge.refuse.Load() >= 0 {
		if _, err := c.Step(t.Context(), s.ss.ID); err != nil {
			failures++
		}
	}
	s.until(c, 10, "made again after the refusals", func() bool { return len(s.sim.ScaleSets()) == 1 })
	got = s.stored()
	if got.State != garrison.ScaleSetCreated || got.ExtendedState != "" || failures == 0 {
		t.Fatalf("after recovery: %s %q (%d failed steps)", got.State, got.ExtendedState, failures)
	}
}

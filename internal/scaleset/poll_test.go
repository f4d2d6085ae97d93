package scaleset_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// eventually waits for cond, polling; it fails the test after a generous bound (a
// liveness bound, not a measure of speed).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("not reached: %s", what)
}

// addScaleSets adds n scale sets named set-<i> to the simulator and the store.
func (s *simEnv) addScaleSets(n int) []garrison.ScaleSet {
	s.t.Helper()
	out := make([]garrison.ScaleSet, 0, n)
	for i := range n {
		ss := s.ss
		ss.ID, ss.Name = 0, fmt.Sprintf("set-%d", i)
		var err error
		if ss.ScaleSetID, err = s.hub.CreateScaleSet(s.t.Context(), s.e, ss); err != nil {
			s.t.Fatal(err)
		}
		if ss, err = s.st.CreateScaleSet(s.t.Context(), ss); err != nil {
			s.t.Fatal(err)
		}
		out = append(out, ss)
	}
	return out
}

func (s *simEnv) sessionsOwnedBy(owner string) int {
	n := 0
	for _, ss := range s.sim.ScaleSets() {
		if ss.SessionOwner == owner {
			n++
		}
	}
	return n
}

// TestListenersDoNotHoldWorkers: 100 scale sets are listened to by a queue of two
// workers while every long poll is held by the service: all sessions open, every scale
// set's job is served a runner, and a scale set's reconcile after an API write (Notify)
// runs while all the polls are still held.
func TestListenersDoNotHoldWorkers(t *testing.T) {
	s := newSimEnvWith(t, forgesim.Options{ScaleSets: forgesim.ScaleSetOptions{Hold: 30 * time.Second}}, 2, 0)
	const n = 100
	sets := append(s.addScaleSets(n-1), s.ss)
	reg := prometheus.NewRegistry()
	c := scaleset.New(scaleset.Options{Store: s.st, Services: s.hub, Owner: "replica-a", ClaimTTL: time.Hour, Workers: 2,
		Metrics: scaleset.NewMetrics(reg)})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	eventually(t, "every scale set's session open", func() bool { return s.sessionsOwnedBy("replica-a") == n })
	eventually(t, "a long poll in flight per session", func() bool {
		return gaugeValue(t, reg, "garrison_scaleset_polls_in_flight") == n
	})

	for _, ss := range sets {
		if _, err := s.sim.QueueJob("acme/app", ss.Name); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "a runner for every scale set's job", func() bool {
		for _, ss := range sets {
			list, err := s.st.ListInstances(t.Context(), store.InstanceFilter{ScaleSetID: ss.ID})
			if err != nil || len(list) == 0 {
				return false
			}
		}
		return true
	})

	// An API write while every poll is held again: the reconcile is not stuck behind them.
	last := sets[0]
	before := len(s.instancesOf(last.ID))
	if _, err := s.st.UpdateScaleSet(t.Context(), last.ID, func(ss *garrison.ScaleSet) error {
		ss.MinIdleRunners = 2
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c.Notify(last.ID)
	eventually(t, "min idle applied while polls are held", func() bool { return len(s.instancesOf(last.ID)) == before+1 })
	if got := s.sessionsOwnedBy("replica-a"); got != n {
		t.Fatalf("%d sessions open, want %d", got, n)
	}
}

func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return 0
}

func (s *simEnv) instancesOf(id uint) []garrison.Instance {
	s.t.Helper()
	list, err := s.st.ListInstances(s.t.Context(), store.InstanceFilter{ScaleSetID: id})
	if err != nil {
		s.t.Fatal(err)
	}
	return list
}

// panicky is the fake service whose first long polls panic.
type panicky struct {
	*fakeService
	panics atomic.Int32
}

func (p *panicky) Service(context.Context, garrison.Entity) (scaleset.Service, error) { return p, nil }

func (p *panicky) GetMessage(ctx context.Context, s scaleset.Session, last int64, capacity int) (*scaleset.Message, error) {
	if p.panics.Add(-1) >= 0 {
		panic("long poll blew up")
	}
	return p.fakeService.GetMessage(ctx, s, last, capacity)
}

// TestPollPanicRecovered: a long poll that panics off the queue does not take the
// process down; the listener backs off, polls again and serves the message.
func TestPollPanicRecovered(t *testing.T) {
	e := newEnv(t, 3, 0)
	svc := &panicky{fakeService: e.svc}
	svc.panics.Store(2)
	e.svc.push(1, 2)
	c := e.controller("replica-a", func(o *scaleset.Options) {
		o.Services = svc
		o.Backoff = workqueue.Backoff{Base: time.Millisecond, Max: 10 * time.Millisecond}
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	eventually(t, "the message processed and acked after the panics", func() bool {
		acked := false
		e.svc.do(func(f *fakeService) { acked = f.acked[1] })
		return acked && e.scaleSet().LastMessageID == 1
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if left := svc.panics.Load(); left >= 0 {
		t.Fatalf("the poll did not panic twice (%d left)", left+1)
	}
}

package sweep

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// countingForge counts QueuedJobs calls; it has no budget.
type countingForge struct{ calls atomic.Int64 }

func (f *countingForge) QueuedJobs(context.Context, garrison.Entity) ([]garrison.Job, error) {
	f.calls.Add(1)
	return nil, nil
}

func (f *countingForge) Budget() (int, int, time.Time) { return 0, 0, time.Time{} }

// oneEntity is a store holding a single entity.
type oneEntity struct {
	nopStore
	e garrison.Entity
}

func (s oneEntity) ListEntities(context.Context, store.EntityFilter) ([]garrison.Entity, error) {
	return []garrison.Entity{s.e}, nil
}

func (s oneEntity) Entity(_ context.Context, id string) (garrison.Entity, error) {
	if id != s.e.ID {
		return garrison.Entity{}, garrison.ErrNotFound
	}
	return s.e, nil
}

func TestRunSweepsEachEntityRepeatedly(t *testing.T) {
	f := &countingForge{}
	s, err := New(Options{
		Store:    oneEntity{e: garrison.Entity{ID: "e1", Type: garrison.Repository, Owner: "o", Name: "r"}},
		Forges:   func(context.Context, garrison.Entity) (Forge, error) { return f, nil },
		Interval: time.Millisecond,
	})
	must(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for f.calls.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

// TestRunSweepsSoonAfterStart checks that a restarted server looks for lost webhooks
// within StartDelay, not a whole Interval later.
func TestRunSweepsSoonAfterStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &countingForge{}
		s, err := New(Options{
			Store:      oneEntity{e: garrison.Entity{ID: "e1", Type: garrison.Repository, Owner: "o", Name: "r"}},
			Forges:     func(context.Context, garrison.Entity) (Forge, error) { return f, nil },
			Interval:   time.Hour,
			StartDelay: time.Minute,
		})
		must(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := f.calls.Load(); got != 1 {
			t.Errorf("sweeps in the first minute = %d, want 1", got)
		}
		cancel()
		<-done
	})
}

// lateEntity is a store whose one entity appears only after appear is closed.
type lateEntity struct {
	oneEntity
	appear chan struct{}
}

func (s lateEntity) ListEntities(ctx context.Context, f store.EntityFilter) ([]garrison.Entity, error) {
	select {
	case <-s.appear:
		return s.oneEntity.ListEntities(ctx, f)
	default:
		return nil, nil
	}
}

// TestRunSweepsNewEntitiesSoon checks that an entity added while the sweeper runs is
// swept within two StartDelays, not a whole Interval later.
func TestRunSweepsNewEntitiesSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &countingForge{}
		st := lateEntity{oneEntity: oneEntity{e: garrison.Entity{ID: "e1", Type: garrison.Repository, Owner: "o", Name: "r"}},
			appear: make(chan struct{})}
		s, err := New(Options{
			Store:      st,
			Forges:     func(context.Context, garrison.Entity) (Forge, error) { return f, nil },
			Interval:   time.Hour,
			StartDelay: time.Minute,
		})
		must(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		time.Sleep(time.Second)
		close(st.appear) // created through the API a second after the start
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if got := f.calls.Load(); got != 1 {
			t.Errorf("sweeps of the new entity within two minutes = %d, want 1", got)
		}
		cancel()
		<-done
	})
}

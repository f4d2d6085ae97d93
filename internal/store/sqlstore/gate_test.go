package sqlstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
)

// TestWriteGateOrder checks that urgent writers go before ordinary writers that waited
// longer, each class in arrival order, and that only one writer holds the gate.
func TestWriteGateOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &writeGate{}
		ctx := t.Context()
		if err := g.enter(ctx); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		start := func(name string, c context.Context) {
			wg.Go(func() {
				if err := g.enter(c); err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				g.leave(c)
			})
			synctest.Wait() // queued before the next one starts
		}
		start("normal-1", ctx)
		start("normal-2", ctx)
		start("urgent-1", store.Urgent(ctx))
		start("urgent-2", store.Urgent(ctx))
		g.leave(t.Context())
		wg.Wait()
		want := []string{"urgent-1", "urgent-2", "normal-1", "normal-2"}
		if len(order) != len(want) {
			t.Fatalf("order %v, want %v", order, want)
		}
		for i := range want {
			if order[i] != want[i] {
				t.Fatalf("order %v, want %v", order, want)
			}
		}
		if g.held {
			t.Fatal("gate still held after everyone left")
		}
	})
}

// TestWriteGateCancel checks that a waiter whose context ends leaves the queue, and that
// the gate still passes to the next writer.
func TestWriteGateCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &writeGate{}
		if err := g.enter(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		gaveUp := make(chan error, 1)
		go func() { gaveUp <- g.enter(ctx) }()
		synctest.Wait()
		entered := make(chan struct{})
		go func() {
			if err := g.enter(t.Context()); err == nil {
				close(entered)
			}
		}()
		synctest.Wait()
		cancel()
		if err := <-gaveUp; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled waiter: %v", err)
		}
		g.leave(t.Context())
		<-entered
		g.leave(t.Context())
		if g.held || len(g.normal)+len(g.urgent) != 0 {
			t.Fatalf("gate left held=%v with %d waiters", g.held, len(g.normal)+len(g.urgent))
		}
	})
}

// TestWriteGateWaitTimed: a writer is told how long it waited for the gate: nothing when
// it was free, the holder's time when it queued behind it.
func TestWriteGateWaitTimed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &writeGate{}
		if waited, err := g.enterTimed(t.Context()); err != nil || waited != 0 {
			t.Fatalf("a free gate: waited %v, %v", waited, err)
		}
		got := make(chan time.Duration, 1)
		go func() {
			waited, err := g.enterTimed(store.Urgent(t.Context()))
			if err != nil {
				t.Error(err)
			}
			got <- waited
			g.leave(t.Context())
		}()
		synctest.Wait()
		time.Sleep(7 * time.Millisecond) // the holder's transaction
		g.leave(t.Context())
		if waited := <-got; waited != 7*time.Millisecond {
			t.Fatalf("queued behind a 7ms holder: waited %v", waited)
		}
	})
}

package events

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/garrison-ci/garrison"
)

var discard = slog.New(slog.DiscardHandler)

// renderID renders a change as {"id": Object} and counts its calls.
func renderID(calls *atomic.Int32) Render {
	return func(_ context.Context, c garrison.Change) (any, error) {
		calls.Add(1)
		return map[string]any{"id": c.Object}, nil
	}
}

func noFallback(garrison.Change) any { return nil }

func poolChange(op garrison.ChangeOp, id string) garrison.Change {
	return garrison.Change{Type: garrison.ChangePool, Op: op, Object: id}
}

// drain returns the frames queued on s.
func drain(s *Sub) []string {
	var out []string
	for {
		select {
		case b := <-s.C:
			out = append(out, string(b))
		default:
			return out
		}
	}
}

// TestHubDelivers: frames in publish order, only to subscribers that want them, rendered
// once whatever the number of subscribers; nothing before a subscription is set.
func TestHubDelivers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub()
		var calls atomic.Int32
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go h.Run(ctx, renderID(&calls), noFallback, discard)

		pools, jobs, none := h.Subscribe(), h.Subscribe(), h.Subscribe()
		pools.Set(Subscription{Filters: []Filter{{Type: garrison.ChangePool}}})
		jobs.Set(Subscription{Filters: []Filter{{Type: garrison.ChangeJob, Ops: []garrison.ChangeOp{garrison.OpDelete}}}})
		everything := h.Subscribe()
		everything.Set(Subscription{Everything: true})

		h.Publish(poolChange(garrison.OpCreate, "p1"))
		h.Publish(garrison.Change{Type: garrison.ChangeJob, Op: garrison.OpUpdate, Object: "j1"})
		h.Publish(poolChange(garrison.OpUpdate, "p1"))
		h.Publish(garrison.Change{Type: garrison.ChangeJob, Op: garrison.OpDelete, Object: "j1"})
		synctest.Wait()

		want := []string{`{"entity-type":"pool","operation":"create","payload":{"id":"p1"}}`,
			`{"entity-type":"pool","operation":"update","payload":{"id":"p1"}}`}
		if got := drain(pools); !equal(got, want) {
			t.Errorf("pool subscriber got %q", got)
		}
		if got := drain(jobs); len(got) != 1 || got[0] != `{"entity-type":"job","operation":"delete","payload":{"id":"j1"}}` {
			t.Errorf("job subscriber got %q", got)
		}
		if got := drain(none); len(got) != 0 {
			t.Errorf("a subscriber without a subscription got %q", got)
		}
		if got := drain(everything); len(got) != 4 {
			t.Errorf("send-everything got %q", got)
		}
		if calls.Load() != 4 {
			t.Errorf("render called %d times for 4 changes", calls.Load())
		}
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHubSlowSubscriber: a subscriber that does not read loses what exceeds its queue,
// counted, while Publish never blocks and another subscriber gets everything.
func TestHubSlowSubscriber(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub()
		var calls atomic.Int32
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go h.Run(ctx, renderID(&calls), noFallback, discard)
		slow, fast := h.Subscribe(), h.Subscribe()
		slow.Set(Subscription{Everything: true})
		fast.Set(Subscription{Everything: true})
		var got atomic.Int32
		go func() {
			for {
				select {
				case <-fast.C:
					got.Add(1)
				case <-fast.Done():
					return
				}
			}
		}()
		const n = SubscriberQueue + 300
		for i := range n {
			h.Publish(poolChange(garrison.OpUpdate, string(rune('a'+i%26))))
			synctest.Wait() // Run and the fast reader take each change before the next

		}
		synctest.Wait()
		if slow.Dropped() != 300 || len(slow.C) != SubscriberQueue {
			t.Errorf("slow subscriber: dropped %d, queued %d; want 300 and %d", slow.Dropped(), len(slow.C), SubscriberQueue)
		}
		if got.Load() != n || fast.Dropped() != 0 {
			t.Errorf("fast subscriber got %d of %d (dropped %d)", got.Load(), n, fast.Dropped())
		}
		if h.Dropped() != 300 {
			t.Errorf("hub dropped %d, want 300", h.Dropped())
		}
	})
}

// TestHubInputFull: with Run stalled, Publish drops what exceeds the input queue instead
// of blocking the writer.
func TestHubInputFull(t *testing.T) {
	h := NewHub()
	s := h.Subscribe()
	s.Set(Subscription{Everything: true})
	for range InputQueue + 10 {
		h.Publish(poolChange(garrison.OpCreate, "p"))
	}
	if h.Dropped() != 10 {
		t.Errorf("dropped %d, want 10", h.Dropped())
	}
}

// TestHubIdle: without subscribers Publish does nothing and Active is false.
func TestHubIdle(t *testing.T) {
	h := NewHub()
	h.Publish(poolChange(garrison.OpCreate, "p"))
	if h.Active() || len(h.in) != 0 {
		t.Errorf("idle hub queued a change")
	}
	s := h.Subscribe()
	if !h.Active() {
		t.Error("not active with a subscriber")
	}
	h.Unsubscribe(s)
	h.Unsubscribe(s)
	if h.Active() {
		t.Error("active after unsubscribing")
	}
	if _, open := <-s.Done(); open {
		t.Error("Done not closed after Unsubscribe")
	}
	var nilHub *Hub
	nilHub.Publish(poolChange(garrison.OpCreate, "p")) // a nil hub is a valid no-op
}

// TestHubStops: when Run ends, every subscription ends, and later ones are over at once.
func TestHubStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub()
		var calls atomic.Int32
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { h.Run(ctx, renderID(&calls), noFallback, discard); close(done) }()
		s := h.Subscribe()
		cancel()
		<-done
		<-s.Done()
		<-h.Subscribe().Done()
		if h.Active() {
			t.Error("active after stop")
		}
	})
}

// TestHubFallback: a change whose rendering fails is sent with the fallback payload.
func TestHubFallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		fail := func(context.Context, garrison.Change) (any, error) { return nil, errors.New("gone") }
		fallback := func(c garrison.Change) any { return map[string]any{"id": c.Object, "short": true} }
		go h.Run(ctx, fail, fallback, discard)
		s := h.Subscribe()
		s.Set(Subscription{Everything: true})
		h.Publish(poolChange(garrison.OpDelete, "p9"))
		synctest.Wait()
		var ev struct {
			Payload map[string]any `json:"payload"`
		}
		if err := json.Unmarshal(<-s.C, &ev); err != nil || ev.Payload["id"] != "p9" || ev.Payload["short"] != true {
			t.Errorf("payload %v (%v)", ev.Payload, err)
		}
	})
}

// TestHubSubscriptionStartsAtSet: a subscription applies to the changes published after it
// was set, however late the Hub's goroutine gets to them; one it replaced still applies to
// the changes published before the replacement (EV-1).
func TestHubSubscriptionStartsAtSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub()
		var calls atomic.Int32
		s := h.Subscribe()
		h.Publish(poolChange(garrison.OpCreate, "before")) // no subscription yet
		s.Set(Subscription{Filters: []Filter{{Type: garrison.ChangePool}}})
		h.Publish(poolChange(garrison.OpUpdate, "under-pools"))
		s.Set(Subscription{Filters: []Filter{{Type: garrison.ChangeJob}}})
		h.Publish(poolChange(garrison.OpUpdate, "after-replace"))
		h.Publish(garrison.Change{Type: garrison.ChangeJob, Op: garrison.OpCreate, Object: "j1"})

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go h.Run(ctx, renderID(&calls), noFallback, discard) // only now are they delivered
		synctest.Wait()
		want := []string{`{"entity-type":"pool","operation":"update","payload":{"id":"under-pools"}}`,
			`{"entity-type":"job","operation":"create","payload":{"id":"j1"}}`}
		if got := drain(s); !equal(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
}

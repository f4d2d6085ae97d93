package workqueue

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestAddDuringFailureBackoffWaits: a key whose handler failed is not run again before its
// backoff ends, however often it is added meanwhile; the added key runs once, on time.
func TestAddDuringFailureBackoffWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(func(_ context.Context, _ string, n int) (Result, error) {
			if n == 1 {
				return Result{}, errors.New("boom")
			}
			return Result{}, nil
		})
		half := func() float64 { return 0 } // the first retry waits exactly 5s
		q := New(r.handle, Options{Backoff: Backoff{Base: 10 * time.Second, Max: time.Minute, Rand: half}})
		stop := start(t, q)
		defer stop()
		t0 := time.Now()
		q.Add("a")
		synctest.Wait()
		for range 3 {
			time.Sleep(time.Second)
			q.Add("a")
			q.AddAfter("a", time.Second)
			synctest.Wait()
		}
		if got := r.count("a"); got != 1 {
			t.Fatalf("calls during the backoff = %d, want 1", got)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := r.count("a"); got != 2 {
			t.Fatalf("calls = %d, want 2", got)
		}
		if got := r.times["a"][1].Sub(t0); got != 5*time.Second {
			t.Fatalf("retried after %v, want 5s", got)
		}
		q.Add("a") // after a success an Add runs at once
		synctest.Wait()
		if got := r.count("a"); got != 3 {
			t.Fatalf("calls after the success = %d, want 3", got)
		}
	})
}

// TestHold: a key whose handler asked to be held is not run before its RequeueAfter, even
// when added; without Hold an Add runs it at once.
func TestHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(func(_ context.Context, key string, n int) (Result, error) {
			if n == 1 {
				return Result{RequeueAfter: 10 * time.Second, Hold: key == "held"}, nil
			}
			return Result{}, nil
		})
		q := New(r.handle, Options{})
		stop := start(t, q)
		defer stop()
		q.Add("held")
		q.Add("free")
		synctest.Wait()
		time.Sleep(time.Second)
		q.Add("held")
		q.Add("free")
		synctest.Wait()
		if r.count("held") != 1 || r.count("free") != 2 {
			t.Fatalf("calls after an Add = held %d, free %d; want 1 and 2", r.count("held"), r.count("free"))
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if r.count("held") != 2 {
			t.Fatalf("held key calls = %d, want 2 once its time came", r.count("held"))
		}
	})
}

func TestHas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		r := newRecorder(func(_ context.Context, key string, _ int) (Result, error) {
			switch key {
			case "slow":
				<-release
			case "later":
				return Result{RequeueAfter: time.Minute}, nil
			case "failing":
				return Result{}, errors.New("boom")
			}
			return Result{}, nil
		})
		q := New(r.handle, Options{Workers: 1})
		q.Add("queued")
		if !q.Has("queued") || q.Has("other") {
			t.Fatalf("before Run: Has(queued)=%v Has(other)=%v", q.Has("queued"), q.Has("other"))
		}
		stop := start(t, q)
		defer stop()
		for _, k := range []string{"later", "failing", "done", "slow"} {
			q.Add(k)
		}
		synctest.Wait()  // slow is running, the rest ran
		q.Add("waiting") // behind slow: one worker
		tests := []struct {
			key       string
			has, busy bool
		}{{"queued", false, false}, {"done", false, false}, {"later", true, false}, {"failing", true, false},
			{"slow", true, true}, {"waiting", true, true}}
		for _, tt := range tests {
			if has, busy := q.Has(tt.key), q.Busy(tt.key); has != tt.has || busy != tt.busy {
				t.Errorf("Has(%s), Busy = %v, %v; want %v, %v", tt.key, has, busy, tt.has, tt.busy)
			}
		}
		close(release)
		synctest.Wait()
		if q.Has("slow") {
			t.Error("Has(slow) after it finished")
		}
	})
}

func TestProcessReady(t *testing.T) {
	r := newRecorder(func(_ context.Context, key string, n int) (Result, error) {
		if key == "a" && n == 1 {
			return Result{RequeueAfter: time.Hour}, nil
		}
		return Result{}, nil
	})
	q := New(r.handle, Options{})
	q.Add("a")
	q.Add("b")
	q.AddAfter("c", time.Hour)
	if n := q.ProcessReady(t.Context()); n != 2 {
		t.Fatalf("ProcessReady = %d, want 2 (a and b)", n)
	}
	if r.count("a") != 1 || r.count("b") != 1 || r.count("c") != 0 {
		t.Fatalf("calls = %v", r.calls)
	}
	if !q.Has("a") || !q.Has("c") || q.Has("b") {
		t.Fatalf("Has: a=%v b=%v c=%v; want a and c due later", q.Has("a"), q.Has("b"), q.Has("c"))
	}
	if n := q.ProcessReady(t.Context()); n != 0 {
		t.Fatalf("second ProcessReady = %d, want 0", n)
	}
}

// TestReconcileID: every handler call gets its own reconcile id in its context, and the
// queue logs a failure with it.
func TestReconcileID(t *testing.T) {
	var logs bytes.Buffer
	ids := map[string]bool{}
	q := New(func(ctx context.Context, key string) (Result, error) {
		ids[ReconcileID(ctx)] = true
		if key == "failing" {
			return Result{}, errors.New("boom " + ReconcileID(ctx))
		}
		return Result{}, nil
	}, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, k := range []string{"a", "b", "failing"} {
		q.Add(k)
	}
	q.ProcessReady(t.Context())
	if len(ids) != 3 || ids[""] {
		t.Fatalf("reconcile ids = %v, want three distinct ones", ids)
	}
	if ReconcileID(t.Context()) != "" {
		t.Error("a reconcile id outside a handler call")
	}
	out := logs.String()
	for id := range ids {
		if strings.Contains(out, "boom "+id) && !strings.Contains(out, "reconcile_id="+id) {
			t.Errorf("failure logged without its reconcile id %s:\n%s", id, out)
		}
	}
	if !strings.Contains(out, "reconcile_id=") {
		t.Errorf("no reconcile id in the log:\n%s", out)
	}
}

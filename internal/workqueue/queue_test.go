package workqueue

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder is a Handler that records calls and answers with a scripted function.
type recorder struct {
	mu     sync.Mutex // guards calls, times, active, maxPar
	calls  map[string]int
	times  map[string][]time.Time
	active map[string]int
	maxPar map[string]int
	total  int
	peak   int
	answer func(ctx context.Context, key string, n int) (Result, error)
}

func newRecorder(answer func(ctx context.Context, key string, n int) (Result, error)) *recorder {
	if answer == nil {
		answer = func(context.Context, string, int) (Result, error) { return Result{}, nil }
	}
	return &recorder{calls: map[string]int{}, times: map[string][]time.Time{}, active: map[string]int{},
		maxPar: map[string]int{}, answer: answer}
}

func (r *recorder) handle(ctx context.Context, key string) (Result, error) {
	r.mu.Lock()
	r.calls[key]++
	n := r.calls[key]
	r.times[key] = append(r.times[key], time.Now())
	r.active[key]++
	r.total++
	r.maxPar[key] = max(r.maxPar[key], r.active[key])
	r.peak = max(r.peak, r.total)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.active[key]--
		r.total--
		r.mu.Unlock()
	}()
	return r.answer(ctx, key, n)
}

func (r *recorder) count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[key]
}

// start runs q in the bubble and returns a stop function that cancels and waits.
func start(t *testing.T, q *Queue) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func TestDeduplicates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(nil)
		q := New(r.handle, Options{})
		for range 3 {
			q.Add("a")
		}
		q.Add("b")
		stop := start(t, q)
		defer stop()
		synctest.Wait()
		if r.count("a") != 1 || r.count("b") != 1 {
			t.Fatalf("calls = %v, want one each", r.calls)
		}
	})
}

func TestKeyAddedWhileProcessingRunsAgainAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		r := newRecorder(func(_ context.Context, _ string, n int) (Result, error) {
			if n == 1 {
				<-release
			}
			return Result{}, nil
		})
		q := New(r.handle, Options{Workers: 4})
		stop := start(t, q)
		defer stop()
		q.Add("a")
		synctest.Wait()
		q.Add("a") // while active: must not run concurrently
		q.Add("a")
		synctest.Wait()
		if got := r.count("a"); got != 1 {
			t.Fatalf("calls while first is running = %d, want 1", got)
		}
		close(release)
		synctest.Wait()
		if got := r.count("a"); got != 2 {
			t.Fatalf("calls = %d, want 2 (once more after the running call)", got)
		}
		if r.maxPar["a"] != 1 {
			t.Fatalf("key processed by %d workers at once", r.maxPar["a"])
		}
	})
}

func TestAddAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(nil)
		q := New(r.handle, Options{})
		stop := start(t, q)
		defer stop()
		t0 := time.Now()
		q.AddAfter("a", 10*time.Second)
		q.AddAfter("a", 30*time.Second) // later delay loses to the pending earlier one
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if r.count("a") != 0 {
			t.Fatal("processed before its delay")
		}
		time.Sleep(21 * time.Second)
		synctest.Wait()
		if r.count("a") != 1 {
			t.Fatalf("calls = %d, want 1", r.count("a"))
		}
		if got := r.times["a"][0].Sub(t0); got != 10*time.Second {
			t.Fatalf("processed after %v, want 10s", got)
		}
		q.AddAfter("b", 0)
		synctest.Wait()
		if r.count("b") != 1 {
			t.Fatal("AddAfter with 0 did not add at once")
		}
	})
}

func TestBackoffGrowsAndResets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errBoom := errors.New("boom")
		r := newRecorder(func(_ context.Context, _ string, n int) (Result, error) {
			if n <= 3 || n == 5 {
				return Result{}, errBoom
			}
			return Result{}, nil
		})
		half := func() float64 { return 0 } // delays are exactly d/2
		q := New(r.handle, Options{Backoff: Backoff{Base: 2 * time.Second, Max: time.Minute, Rand: half}})
		stop := start(t, q)
		defer stop()
		q.Add("a")
		time.Sleep(time.Minute)
		synctest.Wait()
		if r.count("a") != 4 {
			t.Fatalf("calls = %d, want 4 (3 failures then success)", r.count("a"))
		}
		ts := r.times["a"]
		want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
		for i, w := range want {
			if got := ts[i+1].Sub(ts[i]); got != w {
				t.Errorf("retry %d after %v, want %v", i+1, got, w)
			}
		}
		q.Add("a") // fails once more: the backoff starts again from the base
		time.Sleep(time.Minute)
		synctest.Wait()
		ts = r.times["a"]
		if got := ts[5].Sub(ts[4]); got != time.Second {
			t.Errorf("after a success the first retry waited %v, want 1s", got)
		}
	})
}

func TestBackoffJitterAndCap(t *testing.T) {
	tests := []struct {
		attempt int
		rnd     float64
		want    time.Duration
	}{
		{1, 0, 500 * time.Millisecond},
		{1, 0.5, 750 * time.Millisecond},
		{3, 0, 2 * time.Second},
		{20, 0, 5 * time.Second},
		{20, 0.999999, 10 * time.Second},
	}
	for _, tt := range tests {
		b := Backoff{Base: time.Second, Max: 10 * time.Second, Rand: func() float64 { return tt.rnd }}
		got := b.Delay(tt.attempt)
		if d := got - tt.want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("Delay(%d) with rand %v = %v, want %v", tt.attempt, tt.rnd, got, tt.want)
		}
	}
}

func TestTerminalErrorNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errConfig := errors.New("bad config")
		r := newRecorder(func(context.Context, string, int) (Result, error) {
			return Result{}, Terminal(errConfig)
		})
		var mu sync.Mutex
		var reported []error
		q := New(r.handle, Options{OnTerminal: func(key string, err error) {
			mu.Lock()
			reported = append(reported, err)
			mu.Unlock()
		}})
		stop := start(t, q)
		defer stop()
		q.Add("a")
		time.Sleep(time.Hour)
		synctest.Wait()
		if r.count("a") != 1 {
			t.Fatalf("calls = %d, want 1", r.count("a"))
		}
		if len(reported) != 1 || !errors.Is(reported[0], errConfig) || !IsTerminal(reported[0]) {
			t.Fatalf("reported = %v", reported)
		}
	})
}

func TestPanicRecoveredAndRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf syncBuffer
		r := newRecorder(func(_ context.Context, _ string, n int) (Result, error) {
			if n == 1 {
				panic("kaboom")
			}
			return Result{}, nil
		})
		q := New(r.handle, Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
		stop := start(t, q)
		defer stop()
		q.Add("pool-1")
		time.Sleep(time.Second)
		synctest.Wait()
		if r.count("pool-1") != 2 {
			t.Fatalf("calls = %d, want 2 (panic, then retry)", r.count("pool-1"))
		}
		if log := buf.String(); !strings.Contains(log, "key=pool-1") || !strings.Contains(log, "kaboom") {
			t.Fatalf("panic not logged with its key:\n%s", log)
		}
	})
}

func TestRequeueAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(func(_ context.Context, _ string, n int) (Result, error) {
			if n < 3 {
				return Result{RequeueAfter: 5 * time.Second}, nil
			}
			return Result{}, nil
		})
		q := New(r.handle, Options{})
		stop := start(t, q)
		defer stop()
		q.Add("a")
		time.Sleep(time.Minute)
		synctest.Wait()
		if r.count("a") != 3 {
			t.Fatalf("calls = %d, want 3", r.count("a"))
		}
		if d := r.times["a"][1].Sub(r.times["a"][0]); d != 5*time.Second {
			t.Fatalf("requeued after %v, want 5s", d)
		}
	})
}

func TestWorkersBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(func(context.Context, string, int) (Result, error) {
			time.Sleep(time.Second)
			return Result{}, nil
		})
		q := New(r.handle, Options{Workers: 2})
		stop := start(t, q)
		defer stop()
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			q.Add(k)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if r.peak != 2 {
			t.Fatalf("peak concurrency = %d, want 2", r.peak)
		}
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			if r.count(k) != 1 {
				t.Errorf("%s processed %d times", k, r.count(k))
			}
		}
	})
}

func TestGracefulShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		finished := false
		r := newRecorder(func(ctx context.Context, _ string, _ int) (Result, error) {
			<-ctx.Done()
			time.Sleep(time.Second) // clean-up after cancellation
			finished = true
			return Result{}, ctx.Err()
		})
		q := New(r.handle, Options{})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { q.Run(ctx); close(done) }()
		q.Add("a")
		synctest.Wait()
		cancel()
		<-done
		if !finished {
			t.Fatal("Run returned before the running handler finished")
		}
		q.Add("b") // after shutdown: ignored, no panic
		q.AddAfter("c", time.Second)
		if q.Len() != 0 {
			t.Fatalf("Len = %d after shutdown", q.Len())
		}
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

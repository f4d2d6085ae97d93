package workqueue

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// Handler processes one key. It returns a Result asking for a later visit, or an error:
// a Terminal error is reported and not retried; any other error is retried with backoff.
type Handler func(ctx context.Context, key string) (Result, error)

// Result is a successful Handler's wish for the key.
type Result struct {
	// RequeueAfter > 0 adds the key again after that delay.
	RequeueAfter time.Duration
}

// Options tune a Queue. The zero value is usable.
type Options struct {
	// Workers bounds concurrent Handler calls (default 4).
	Workers int
	// Backoff spaces the retries of a failing key (default 100ms doubling up to 5m).
	Backoff Backoff
	// Logger receives failures and panics; nil discards.
	Logger *slog.Logger
	// OnTerminal is told about every Terminal error; nil only logs it.
	OnTerminal func(key string, err error)
	// Pace, when > 0, spaces the calls of a key added again and again: its next call
	// starts no sooner than Pace times the previous call's duration after that call ended
	// (at most MaxPace later). A key added continuously then takes at most 1/(1+Pace) of
	// a worker, however slow its handler; a key added once in a while is not delayed.
	Pace float64
	// MaxPace caps the pause Pace asks for (default 1s).
	MaxPace time.Duration
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Backoff.Base <= 0 {
		o.Backoff.Base = 100 * time.Millisecond
	}
	if o.Backoff.Max <= 0 {
		o.Backoff.Max = 5 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxPace <= 0 {
		o.MaxPace = time.Second
	}
	return o
}

// Queue is a keyed, de-duplicating work queue. Create it with New, feed it with Add and
// AddAfter (safe from any goroutine, before or during Run) and start it with Run.
type Queue struct {
	handle Handler
	opts   Options

	mu       sync.Mutex // guards every field below
	cond     *sync.Cond // signalled when ready grows or the queue closes
	ready    []string   // keys waiting for a worker, oldest first
	queued   map[string]bool
	active   map[string]bool // keys a worker is processing
	dirty    map[string]bool // active keys added again meanwhile
	timers   map[string]*delayed
	failures map[string]int       // consecutive failures per key
	paused   map[string]time.Time // with Pace: a key's earliest next call
	closed   bool
}

// delayed is a pending AddAfter.
type delayed struct {
	at    time.Time
	timer *time.Timer
}

// New returns a queue that hands keys to h.
func New(h Handler, opts Options) *Queue {
	q := &Queue{
		handle: h, opts: opts.withDefaults(),
		queued: map[string]bool{}, active: map[string]bool{}, dirty: map[string]bool{},
		timers: map[string]*delayed{}, failures: map[string]int{}, paused: map[string]time.Time{},
	}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Add queues key unless it is queued already. A key being processed is processed again
// once the running call returns.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(key)
}

func (q *Queue) addLocked(key string) {
	switch {
	case q.closed || q.queued[key]:
	case q.active[key]:
		q.dirty[key] = true
	case q.pausedFor(key) > 0:
		q.addAfterLocked(key, q.pausedFor(key))
	default:
		q.queued[key] = true
		q.ready = append(q.ready, key)
		q.cond.Signal()
	}
}

// pausedFor is how long key must still wait under Pace (0: it may run now).
func (q *Queue) pausedFor(key string) time.Duration {
	until, ok := q.paused[key]
	if !ok {
		return 0
	}
	d := time.Until(until)
	if d <= 0 {
		delete(q.paused, key)
		return 0
	}
	return d
}

// pace records when key may run again after a call that took took.
func (q *Queue) pace(key string, took time.Duration) {
	if q.opts.Pace <= 0 {
		return
	}
	gap := min(time.Duration(float64(took)*q.opts.Pace), q.opts.MaxPace)
	if gap > 0 {
		q.paused[key] = time.Now().Add(gap)
	}
}

// AddAfter queues key after d. Of several pending AddAfter calls for one key the earliest
// wins; d <= 0 is Add.
func (q *Queue) AddAfter(key string, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addAfterLocked(key, d)
}

func (q *Queue) addAfterLocked(key string, d time.Duration) {
	if d <= 0 {
		q.addLocked(key)
		return
	}
	if q.closed {
		return
	}
	at := time.Now().Add(d)
	if old, ok := q.timers[key]; ok {
		if !old.at.After(at) {
			return
		}
		old.timer.Stop()
	}
	dl := &delayed{at: at}
	dl.timer = time.AfterFunc(d, func() { q.fire(key, dl) })
	q.timers[key] = dl
}

// fire adds key when its delay dl is still the pending one.
func (q *Queue) fire(key string, dl *delayed) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.timers[key] == dl {
		delete(q.timers, key)
		q.addLocked(key)
	}
}

// Len returns how many keys wait for a worker (not counting delayed ones).
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.ready)
}

// Run processes keys with Options.Workers workers until ctx is done, then waits for the
// running Handler calls to return. Call it once.
func (q *Queue) Run(ctx context.Context) {
	stop := context.AfterFunc(ctx, q.shutdown)
	defer stop()
	var wg sync.WaitGroup
	for range q.opts.Workers {
		wg.Go(func() { q.work(ctx) })
	}
	wg.Wait()
}

// shutdown stops handing out keys and cancels the delays.
func (q *Queue) shutdown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	for k, dl := range q.timers {
		dl.timer.Stop()
		delete(q.timers, k)
	}
	q.cond.Broadcast()
}

// work is one worker's loop.
func (q *Queue) work(ctx context.Context) {
	for {
		key, ok := q.next()
		if !ok {
			return
		}
		start := time.Now()
		res, err := q.call(ctx, key)
		q.done(key, res, err, time.Since(start))
	}
}

// next waits for a key and marks it active; false once the queue is closed.
func (q *Queue) next() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.ready) == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return "", false
	}
	key := q.ready[0]
	q.ready[0] = ""
	q.ready = q.ready[1:]
	delete(q.queued, key)
	q.active[key] = true
	return key, true
}

// call runs the handler, turning a panic into a *PanicError.
func (q *Queue) call(ctx context.Context, key string) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			pe := &PanicError{Key: key, Value: v, Stack: debug.Stack()}
			q.opts.Logger.LogAttrs(ctx, slog.LevelError, "workqueue: handler panicked",
				slog.String("key", key), slog.Any("panic", v), slog.String("stack", string(pe.Stack)))
			res, err = Result{}, pe
		}
	}()
	return q.handle(ctx, key)
}

// done records the outcome of processing key and queues it again as needed.
func (q *Queue) done(key string, res Result, err error, took time.Duration) {
	if IsTerminal(err) {
		q.reportTerminal(key, err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.active, key)
	q.pace(key, took)
	switch {
	case err == nil:
		delete(q.failures, key)
		if res.RequeueAfter > 0 {
			q.addAfterLocked(key, res.RequeueAfter)
		}
	case IsTerminal(err):
		delete(q.failures, key)
	default:
		q.failures[key]++
		d := q.opts.Backoff.Delay(q.failures[key])
		q.opts.Logger.Warn("workqueue: handler failed; retrying",
			slog.String("key", key), slog.Int("failures", q.failures[key]), slog.Duration("retry_in", d), slog.Any("error", err))
		q.addAfterLocked(key, d)
	}
	if q.dirty[key] {
		delete(q.dirty, key)
		q.addLocked(key)
	}
}

// reportTerminal logs a terminal error and tells OnTerminal. It runs before the key is
// released, without the lock, so OnTerminal may call Add.
func (q *Queue) reportTerminal(key string, err error) {
	q.opts.Logger.Error("workqueue: terminal error; not retrying", slog.String("key", key), slog.Any("error", err))
	if q.opts.OnTerminal != nil {
		q.opts.OnTerminal(key, err)
	}
}

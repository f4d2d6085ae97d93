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
	// Hold keeps the key from running before RequeueAfter has passed, as a failure's
	// backoff does: an Add meanwhile waits for it. (Without Hold an Add runs the key at
	// once.) For a handler that knows nothing can be done before then.
	Hold bool
}

// Options tune a Queue. The zero value is usable.
type Options struct {
	// Name names the queue in logs and metrics (the name and controller labels).
	Name string
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
	// Metrics, when set, receives the queue's and its handler's metrics under Name.
	Metrics *Metrics
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
	m      *queueMetrics // nil without Options.Metrics

	mu       sync.Mutex // guards every field below
	cond     *sync.Cond // signalled when ready grows or the queue closes
	ready    []string   // keys waiting for a worker, oldest first
	queued   map[string]time.Time
	active   map[string]time.Time // keys a worker is processing, since when
	dirty    map[string]bool      // active keys added again meanwhile
	timers   map[string]*delayed
	failures map[string]int       // consecutive failures per key
	retryAt  map[string]time.Time // a failed key's earliest next call
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
		queued: map[string]time.Time{}, active: map[string]time.Time{}, dirty: map[string]bool{},
		timers: map[string]*delayed{}, failures: map[string]int{}, retryAt: map[string]time.Time{},
		paused: map[string]time.Time{},
	}
	q.cond = sync.NewCond(&q.mu)
	if q.opts.Metrics != nil {
		q.m = q.opts.Metrics.register(q)
	}
	return q
}

// Add queues key unless it is queued already. A key being processed is processed again
// once the running call returns; a key waiting out its failure backoff (or its pace) is
// processed when that ends, not before.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(key)
}

func (q *Queue) addLocked(key string) {
	if q.closed {
		return
	}
	if _, ok := q.queued[key]; ok {
		return
	}
	switch {
	case !q.active[key].IsZero():
		if !q.dirty[key] {
			q.dirty[key] = true
			q.m.added()
		}
	case q.waitFor(key) > 0:
		q.addAfterLocked(key, q.waitFor(key))
	default:
		q.queued[key] = time.Now()
		q.ready = append(q.ready, key)
		q.m.added()
		q.cond.Signal()
	}
}

// waitFor is how long key must still wait: its failure backoff, or its pause under Pace
// (0: it may run now).
func (q *Queue) waitFor(key string) time.Duration {
	return max(untilLocked(q.retryAt, key), untilLocked(q.paused, key))
}

// untilLocked is how long until m[key] (0 when absent or past; past entries are dropped).
func untilLocked(m map[string]time.Time, key string) time.Duration {
	until, ok := m[key]
	if !ok {
		return 0
	}
	d := time.Until(until)
	if d <= 0 {
		delete(m, key)
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

// Has reports whether the queue holds key in any form: waiting for a worker, being
// processed, or due later (AddAfter, RequeueAfter, a failure's backoff).
func (q *Queue) Has(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, queued := q.queued[key]
	_, timed := q.timers[key]
	return queued || timed || !q.active[key].IsZero()
}

// Busy reports whether key waits for a worker or is being processed (not merely due
// later).
func (q *Queue) Busy(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, queued := q.queued[key]
	return queued || !q.active[key].IsZero()
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

// ProcessReady processes, in the calling goroutine and one at a time, the keys waiting
// for a worker, as a worker would, until none is left; keys due later stay due later. It
// returns how many calls it made. It serves drivers and tests that step a queue by hand
// instead of running it.
func (q *Queue) ProcessReady(ctx context.Context) int {
	n := 0
	for {
		q.mu.Lock()
		key, ok := q.takeLocked()
		q.mu.Unlock()
		if !ok {
			return n
		}
		q.process(ctx, key)
		n++
	}
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
		q.process(ctx, key)
	}
}

// process calls the handler for an active key, with a fresh reconcile id in its context,
// and records the outcome.
func (q *Queue) process(ctx context.Context, key string) {
	id := newReconcileID()
	ctx = context.WithValue(ctx, reconcileIDKey{}, id)
	start := time.Now()
	res, err := q.call(ctx, key)
	took := time.Since(start)
	q.m.handled(res, err, took)
	q.done(key, id, res, err, took)
}

// next waits for a key and marks it active; false once the queue is closed.
func (q *Queue) next() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.ready) == 0 && !q.closed {
		q.cond.Wait()
	}
	return q.takeLocked()
}

// takeLocked takes the oldest ready key and marks it active; false when there is none or
// the queue is closed.
func (q *Queue) takeLocked() (string, bool) {
	if q.closed || len(q.ready) == 0 {
		return "", false
	}
	key := q.ready[0]
	q.ready[0] = ""
	q.ready = q.ready[1:]
	now := time.Now()
	q.m.waited(now.Sub(q.queued[key]))
	delete(q.queued, key)
	delete(q.retryAt, key)
	q.active[key] = now
	return key, true
}

// call runs the handler, turning a panic into a *PanicError.
func (q *Queue) call(ctx context.Context, key string) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			pe := &PanicError{Key: key, Value: v, Stack: debug.Stack()}
			q.opts.Logger.LogAttrs(ctx, slog.LevelError, "workqueue: handler panicked", slog.String("queue", q.opts.Name),
				slog.String("key", key), slog.String("reconcile_id", ReconcileID(ctx)), slog.Any("panic", v),
				slog.String("stack", string(pe.Stack)))
			q.m.panicked()
			res, err = Result{}, pe
		}
	}()
	return q.handle(ctx, key)
}

// done records the outcome of processing key (call id) and queues it again as needed.
func (q *Queue) done(key, id string, res Result, err error, took time.Duration) {
	if IsTerminal(err) {
		q.reportTerminal(key, id, err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.active, key)
	q.pace(key, took)
	switch {
	case err == nil:
		delete(q.failures, key)
		if res.RequeueAfter > 0 && res.Hold {
			q.retryAt[key] = time.Now().Add(res.RequeueAfter)
		}
		if res.RequeueAfter > 0 {
			q.addAfterLocked(key, res.RequeueAfter)
		}
	case IsTerminal(err):
		delete(q.failures, key)
	default:
		q.failures[key]++
		d := q.opts.Backoff.Delay(q.failures[key])
		q.opts.Logger.Warn("workqueue: handler failed; retrying", slog.String("queue", q.opts.Name),
			slog.String("key", key), slog.String("reconcile_id", id), slog.Int("failures", q.failures[key]),
			slog.Duration("retry_in", d), slog.Any("err", err))
		q.retryAt[key] = time.Now().Add(d)
		q.m.retried()
		q.addAfterLocked(key, d)
	}
	if q.dirty[key] {
		delete(q.dirty, key)
		q.addLocked(key)
	}
}

// reportTerminal logs a terminal error and tells OnTerminal. It runs before the key is
// released, without the lock, so OnTerminal may call Add.
func (q *Queue) reportTerminal(key, id string, err error) {
	q.opts.Logger.Error("workqueue: terminal error; not retrying", slog.String("queue", q.opts.Name),
		slog.String("key", key), slog.String("reconcile_id", id), slog.Any("err", err))
	if q.opts.OnTerminal != nil {
		q.opts.OnTerminal(key, err)
	}
}

// stats is a snapshot of the queue for the metrics collector.
type stats struct {
	depth             int
	unfinished        time.Duration // summed over the keys being processed
	longest           time.Duration // the longest-running key's time so far
	active, maxActive int
}

func (q *Queue) stats() stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	s := stats{depth: len(q.ready), active: len(q.active), maxActive: q.opts.Workers}
	for _, since := range q.active {
		d := now.Sub(since)
		s.unfinished += d
		s.longest = max(s.longest, d)
	}
	return s
}

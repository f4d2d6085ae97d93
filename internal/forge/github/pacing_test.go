package github_test

import (
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// fakeClock is a manual clock shared by the simulator and the client: time moves only
// when the test advances it, and After fires then.
type fakeClock struct {
	mu      sync.Mutex // guards now and waiters
	now     time.Time
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the clock and fires the waits that are due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// Waiting is the number of pending waits.
func (c *fakeClock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// pacedEnv is the simulator and a client on one fake clock.
type pacedEnv struct {
	clock *fakeClock
	sim   *forgesim.Sim
	c     *github.Client
}

func newPacedEnv(t *testing.T, o github.Options) *pacedEnv {
	t.Helper()
	clock := newFakeClock()
	sim, url := startSim(t, forgesim.Options{Now: clock.Now})
	o.Clock = clock
	ep := garrison.Endpoint{Name: "sim", Type: garrison.GitHub, BaseURL: url, APIBaseURL: url + "/", UploadBaseURL: url + "/"}
	o.ExactAPIBaseURL = true
	c, err := github.New(ep, patCreds(), o)
	if err != nil {
		t.Fatal(err)
	}
	return &pacedEnv{clock: clock, sim: sim, c: c}
}

// runCalls lists the repository's runners from n goroutines and steps the fake clock by
// step until all have returned; start is called once the first call waits on the clock
// (the forge answered it with a limit) and before the others start. It returns the
// errors of the calls.
func (e *pacedEnv) runCalls(t *testing.T, n int, step time.Duration) []error {
	t.Helper()
	errs := make([]error, n)
	var done atomic.Int32
	var wg sync.WaitGroup
	call := func(i int) {
		defer wg.Done()
		defer done.Add(1)
		_, errs[i] = e.c.ListRunners(t.Context(), repoEntity)
	}
	wg.Add(n)
	go call(0)
	settle := func(waiting int) {
		for e.clock.Waiting()+int(done.Load()) < waiting {
			time.Sleep(time.Millisecond) // let the woken calls reach the forge or the clock
		}
	}
	settle(1)
	for i := 1; i < n; i++ {
		go call(i)
	}
	settle(n)
	for deadline := 0; int(done.Load()) < n; deadline++ {
		if deadline > 100_000 {
			t.Fatalf("calls still waiting after %d steps", deadline)
		}
		e.clock.Advance(step)
		settle(n)
	}
	wg.Wait()
	return errs
}

// callTimes returns when the forge received the runner listings, oldest first.
func (e *pacedEnv) callTimes() []time.Time {
	var out []time.Time
	for _, c := range e.sim.CallLog() {
		if c.Route == "GET /repos/{owner}/{repo}/actions/runners" {
			out = append(out, c.At)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// TestCallsWaitingForRetryAfterAreReleasedSpread: twenty calls wait for a secondary
// limit's Retry-After; when it expires the forge sees them one at a time, never two at
// one instant nor within half the release spacing, instead of twenty at once.
func TestCallsWaitingForRetryAfterAreReleasedSpread(t *testing.T) {
	const n = 20
	const spacing = 250 * time.Millisecond
	const step = 10 * time.Millisecond
	e := newPacedEnv(t, github.Options{MaxWait: time.Minute, ReleaseSpacing: spacing})
	start := e.clock.Now()
	e.sim.TriggerSecondaryLimit(1, 3*time.Second, 403)
	for i, err := range e.runCalls(t, n, step) {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	times := e.callTimes()
	if len(times) != n+1 {
		t.Fatalf("the forge saw %d listings, want %d (the limited one and %d after it)", len(times), n+1, n)
	}
	expiry := start.Add(3 * time.Second)
	released := times[1:]
	if released[0].Before(expiry) {
		t.Fatalf("a call reached the forge at +%v, before the Retry-After expired (+3s)", released[0].Sub(start))
	}
	for i := 1; i < len(released); i++ {
		if gap := released[i].Sub(released[i-1]); gap < spacing/2-step {
			t.Fatalf("calls %d and %d reached the forge %v apart, want at least %v: a burst", i-1, i, gap, spacing/2-step)
		}
	}
	if atExpiry := countWithin(released, expiry, spacing); atExpiry > 1 {
		t.Fatalf("%d calls within %v of the expiry, want 1", atExpiry, spacing)
	}
	t.Logf("%d calls released from +%v to +%v after the expiry", n, released[0].Sub(expiry), released[n-1].Sub(expiry))
}

// countWithin counts the times in [from, from+d).
func countWithin(times []time.Time, from time.Time, d time.Duration) int {
	n := 0
	for _, at := range times {
		if !at.Before(from) && at.Before(from.Add(d)) {
			n++
		}
	}
	return n
}

// TestRepeatedLimitAfterResetBacksOffExponentially: the forge keeps answering 403 with
// its budget spent although the reset it names has passed; the call's retries come
// back after growing, jittered waits (1s, 2s, 4s, 8s, 16s ranges), not every second.
func TestRepeatedLimitAfterResetBacksOffExponentially(t *testing.T) {
	const strikes = 5
	const step = 20 * time.Millisecond
	const spacing = 250 * time.Millisecond
	e := newPacedEnv(t, github.Options{MaxWait: time.Hour, MaxRetries: 10, ReleaseSpacing: spacing})
	e.sim.TriggerStaleRateLimit(strikes, 403)
	if err := e.runCalls(t, 1, step)[0]; err != nil {
		t.Fatal(err)
	}
	times := e.callTimes()
	if len(times) != strikes+1 {
		t.Fatalf("the forge saw %d listings, want %d", len(times), strikes+1)
	}
	backoff := time.Second
	for i := 1; i < len(times); i++ {
		gap := times[i].Sub(times[i-1])
		t.Logf("retry %d after %v", i, gap)
		if lo, hi := backoff/2, backoff+spacing/2+step; gap < lo || gap > hi {
			t.Errorf("retry %d came %v after the previous answer, want within [%v, %v]", i, gap, lo, hi)
		}
		backoff *= 2
	}
}

// TestRefusedCallsComeBackSpread: calls refused at once during a long limit (their turn
// is beyond MaxWait) are told to come back at different times within the release
// window after it, never before it ends; the forge sees none of them.
func TestRefusedCallsComeBackSpread(t *testing.T) {
	const window = 10 * time.Second
	e := newPacedEnv(t, github.Options{ReleaseWindow: window})
	start := e.clock.Now()
	e.sim.TriggerSecondaryLimit(1, time.Minute, 403)
	untils := map[time.Time]bool{}
	for i := range 20 {
		_, err := e.c.ListRunners(t.Context(), repoEntity)
		var rl *garrison.RateLimitError
		if !errors.As(err, &rl) {
			t.Fatalf("call %d: %v, want a rate limit error", i, err)
		}
		if rl.Until.Before(start.Add(time.Minute)) || rl.Until.After(start.Add(time.Minute+window)) {
			t.Fatalf("call %d told to come back at +%v, want within [+1m, +1m%v]", i, rl.Until.Sub(start), window)
		}
		untils[rl.Until] = true
	}
	if len(untils) < 15 {
		t.Fatalf("20 refused calls were told %d distinct times, want them spread", len(untils))
	}
	if got := len(e.callTimes()); got != 1 {
		t.Fatalf("the forge saw %d listings, want 1", got)
	}
}

package reconcile

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// sweepLog counts the sweeps of each entity and answers with a scripted error.
type sweepLog struct {
	mu     sync.Mutex // guards counts
	counts map[string]int
	answer func(e garrison.Entity) error
}

func (s *sweepLog) sweep(_ context.Context, e garrison.Entity) error {
	s.mu.Lock()
	s.counts[e.ID]++
	s.mu.Unlock()
	if s.answer != nil {
		return s.answer(e)
	}
	return nil
}

func (s *sweepLog) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[id]
}

// runSweeps runs a reconciler with fast sweeps (every interval; default 20ms) and
// resyncs until stop is called.
func runSweeps(t *testing.T, h *harness, log *sweepLog, leases Leases, interval time.Duration) (*Reconciler, func()) {
	t.Helper()
	r, err := New(Options{Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge},
		Tokens: h.tokens, InjectTemplate: injectTemplate, Sweep: log.sweep, Leases: leases, Holder: "replica-a",
		SweepInterval: cmp.Or(interval, 20*time.Millisecond), SweepStartDelay: 10 * time.Millisecond,
		ResyncInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	return r, func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// waitFor polls cond until it holds. It gives up after a minute, only so that a broken
// build fails rather than hangs: the tests assert progress, not speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	giveUp := time.After(time.Minute)
	for !cond() {
		select {
		case <-giveUp:
			t.Fatalf("gave up waiting for %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestSweepsFollowEntities: each entity is swept again and again on the sweeps
// controller; an entity created later is picked up by the resync, a deleted one's
// sweeps stop.
func TestSweepsFollowEntities(t *testing.T) {
	h := newHarness(t)
	log := &sweepLog{counts: map[string]int{}}
	r, stop := runSweeps(t, h, log, nil, 0)
	defer stop()
	first := h.entity.ID
	waitFor(t, "three sweeps of the first entity", func() bool { return log.count(first) >= 3 })
	second := must(h.store.CreateEntity(t.Context(), garrison.Entity{Type: garrison.Organization, Name: "acme",
		CredentialsID: h.entity.CredentialsID}))(t)
	waitFor(t, "three sweeps of the new entity", func() bool { return log.count(second.ID) >= 3 })
	if err := h.store.DeleteEntity(t.Context(), second.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deleted entity's sweeps to stop", func() bool { return !r.sweeps.Has(second.ID) })
	after := log.count(second.ID)
	was := log.count(first)
	waitFor(t, "three more sweeps of the first entity", func() bool { return log.count(first) >= was+3 })
	if n := log.count(second.ID); n != after {
		t.Errorf("the deleted entity was swept %d more times", n-after)
	}
}

// TestSweepsStartSoon: after a start, and when an entity appears, the first sweep comes
// within the start delay, not a whole interval later.
func TestSweepsStartSoon(t *testing.T) {
	h := newHarness(t)
	log := &sweepLog{counts: map[string]int{}}
	_, stop := runSweeps(t, h, log, nil, time.Hour)
	defer stop()
	waitFor(t, "the first sweep after the start", func() bool { return log.count(h.entity.ID) == 1 })
	late := must(h.store.CreateEntity(t.Context(), garrison.Entity{Type: garrison.Organization, Name: "acme",
		CredentialsID: h.entity.CredentialsID}))(t)
	waitFor(t, "the first sweep of a new entity", func() bool { return log.count(late.ID) == 1 })
}

// TestSweepsTakeALease: with leases, an entity whose sweep lease another replica holds
// is not swept here, while the others are.
func TestSweepsTakeALease(t *testing.T) {
	h := newHarness(t)
	other := must(h.store.CreateEntity(t.Context(), garrison.Entity{Type: garrison.Organization, Name: "acme",
		CredentialsID: h.entity.CredentialsID}))(t)
	if _, held, err := h.store.Lease(t.Context(), "sweep/"+other.ID, "replica-b", time.Hour); err != nil || !held {
		t.Fatalf("replica b's lease: %v %v", held, err)
	}
	log := &sweepLog{counts: map[string]int{}}
	_, stop := runSweeps(t, h, log, h.store, 0)
	defer stop()
	waitFor(t, "three sweeps of the free entity", func() bool { return log.count(h.entity.ID) >= 3 })
	if n := log.count(other.ID); n != 0 {
		t.Errorf("the entity replica b holds was swept %d times here", n)
	}
}

// TestSweepClaimOutlastsTheNextSweep: a sweep claims its entity until after the holder's
// next sweep, however the interval is jittered, so that no other replica finds the claim
// lapsed in between and sweeps the entity too.
func TestSweepClaimOutlastsTheNextSweep(t *testing.T) {
	h := newHarness(t)
	log := &sweepLog{counts: map[string]int{}}
	const interval = time.Hour // one sweep in the test: the first, within SweepStartDelay
	r, stop := runSweeps(t, h, log, h.store, interval)
	waitFor(t, "the first sweep", func() bool { return log.count(h.entity.ID) >= 1 })
	stop()
	claims, err := h.store.ListClaims(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	latestNext := time.Duration(float64(interval) * (1 + r.o.SweepJitter))
	for _, c := range claims {
		if c.Kind != store.ClaimSweep {
			continue
		}
		if left := time.Until(c.ExpiresAt); left < latestNext {
			t.Fatalf("the sweep claim lasts %v more; the holder's next sweep may come %v after this one", left, latestNext)
		}
		return
	}
	t.Fatalf("no sweep claim among %+v", claims)
}

// expiryLeases records, per claim, when the leases it grants expire by this process's
// clock.
type expiryLeases struct {
	Leases
	mu      sync.Mutex // guards expires
	expires map[string]time.Time
}

func (l *expiryLeases) Lease(ctx context.Context, name, holder string, ttl time.Duration) (store.Fence, bool, error) {
	at := time.Now()
	f, held, err := l.Leases.Lease(ctx, name, holder, ttl)
	if held && err == nil {
		l.mu.Lock()
		l.expires[name] = at.Add(ttl)
		l.mu.Unlock()
	}
	return f, held, err
}

func (l *expiryLeases) expiry(name string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.expires[name]
}

// TestSweepClaimRunsFromTheSweepsEnd: the claim of a sweep that took a while lasts the
// claim's whole TTL from the sweep's end, as the holder's next sweep is due an interval
// after that end: a claim counted from the start would lapse early by the sweep's length.
func TestSweepClaimRunsFromTheSweepsEnd(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var ended time.Time
	log := &sweepLog{counts: map[string]int{}, answer: func(garrison.Entity) error {
		time.Sleep(20 * time.Millisecond) // a sweep waiting on its forge
		mu.Lock()
		defer mu.Unlock()
		if ended.IsZero() {
			ended = time.Now()
		}
		return nil
	}}
	leases := &expiryLeases{Leases: h.store, expires: map[string]time.Time{}}
	r, stop := runSweeps(t, h, log, leases, time.Hour) // one sweep: the first
	defer stop()
	claim := store.SweepClaim(h.entity.ID)
	waitFor(t, "the sweep's claim to run its TTL from the sweep's end", func() bool {
		mu.Lock()
		end := ended
		mu.Unlock()
		return !end.IsZero() && !leases.expiry(claim).Before(end.Add(r.sweepClaimTTL()))
	})
}

// TestSweepsWaitOutARateLimit: a sweep refused for a rate limit is not tried again before
// the limit resets, while the other entities' sweeps go on.
func TestSweepsWaitOutARateLimit(t *testing.T) {
	h := newHarness(t)
	limited := must(h.store.CreateEntity(t.Context(), garrison.Entity{Type: garrison.Organization, Name: "acme",
		CredentialsID: h.entity.CredentialsID}))(t)
	log := &sweepLog{counts: map[string]int{}, answer: func(e garrison.Entity) error {
		if e.ID == limited.ID {
			return &garrison.RateLimitError{Until: time.Now().Add(time.Hour)}
		}
		return errors.New("forge down") // a failure is retried at the next interval
	}}
	_, stop := runSweeps(t, h, log, nil, 0)
	defer stop()
	waitFor(t, "the limited entity's sweep", func() bool { return log.count(limited.ID) >= 1 })
	was := log.count(h.entity.ID)
	waitFor(t, "three more sweeps of the other entity", func() bool { return log.count(h.entity.ID) >= was+3 })
	if n := log.count(limited.ID); n != 1 {
		t.Errorf("the rate-limited entity was swept %d times, want once", n)
	}
}

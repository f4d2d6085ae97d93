package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// fenceCounter is what a backend may report of its fencing refusals.
type fenceCounter interface {
	FencingRefusals() map[string]uint64
}

// lease takes a lease that must be free or expired, and returns holder's fence.
func lease(t *testing.T, s store.Store, name, holder string, ttl time.Duration) store.Fence {
	t.Helper()
	f, got, err := s.Lease(t.Context(), name, holder, ttl)
	must(t, err)
	if !got || f.Claim != name {
		t.Fatalf("%s did not get lease %s (got %v, fence %+v)", holder, name, got, f)
	}
	return f
}

// lapse waits for leases of 1 ms to expire.
func lapse() { time.Sleep(20 * time.Millisecond) }

// wantFenced checks err is a fencing refusal, which is a conflict too.
func wantFenced(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, garrison.ErrFenced) || !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("%s: got error %v, want a fencing refusal", what, err)
	}
}

var fencingCases = []testCase{
	{"Fencing/TokensGrowOnEveryTakeover", func(t *testing.T, _ Backend, s store.Store) {
		const name = "pool/p1"
		steps := []struct {
			holder string
			ttl    time.Duration
			lapse  bool // let the lease expire after the step
			free   bool // release the lease after the step
			grows  bool // the token is larger than the step before's
		}{
			{holder: "a", ttl: time.Hour, grows: true},             // first claim
			{holder: "a", ttl: time.Millisecond, lapse: true},      // renewal: same token
			{holder: "a", ttl: time.Hour},                          // its own expired lease back: same token
			{holder: "a", ttl: time.Millisecond, lapse: true},      // renewal, then a pauses past it
			{holder: "b", ttl: time.Hour, free: true, grows: true}, // takeover, then release
			{holder: "b", ttl: time.Hour, grows: true},             // a released lease claimed again
			{holder: "b", ttl: time.Millisecond, lapse: true},      // renewal
			{holder: "c", ttl: time.Hour, grows: true},             // takeover
		}
		var last int64
		for i, st := range steps {
			f := lease(t, s, name, st.holder, st.ttl)
			if st.grows && f.Token <= last || !st.grows && f.Token != last {
				t.Fatalf("step %d (%s): token %d after %d, want grown=%v", i, st.holder, f.Token, last, st.grows)
			}
			last = f.Token
			if st.lapse {
				lapse()
			}
			if st.free {
				must(t, s.ReleaseLease(t.Context(), name, st.holder))
			}
		}
		if _, got, err := s.Lease(t.Context(), name, "a", time.Hour); err != nil || got {
			t.Fatalf("a took c's live lease: %v %v", got, err)
		}
	}},
	{"Fencing/StaleHolderCannotWrite", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		name := store.PoolClaim(f.pool.ID)
		ok(s.CreateInstance(ctx, newInstance("garm-kept", f.pool.ID))).get(t)
		ok(s.UpsertJob(ctx, 7, func(j *garrison.Job, _ bool) error { j.Action = garrison.JobQueued; return nil })).get(t)
		a := store.WithFence(ctx, lease(t, s, name, "a", time.Millisecond))
		ok(s.CreateInstance(a, newInstance("garm-a1", f.pool.ID))).get(t) // a's writes pass while it holds the claim
		lapse()
		b := store.WithFence(ctx, lease(t, s, name, "b", time.Hour))
		before := refusals(s)
		writes := []struct {
			name  string
			write func(ctx context.Context) error
		}{
			{"create instance", func(ctx context.Context) error {
				return second(s.CreateInstance(ctx, newInstance("garm-stale", f.pool.ID)))
			}},
			{"update instance", func(ctx context.Context) error {
				return second(s.UpdateInstance(ctx, "garm-kept", func(i *garrison.Instance) error {
					i.Status = garrison.InstanceRunning
					return nil
				}))
			}},
			{"instance event", func(ctx context.Context) error {
				return s.AddInstanceEvent(ctx, "garm-kept", garrison.Event{Message: "stale", Type: garrison.EventStatus, Level: garrison.LevelInfo})
			}},
			{"delete instance", func(ctx context.Context) error { return s.DeleteInstance(ctx, "garm-a1") }},
			{"pool status", func(ctx context.Context) error {
				return second(s.UpdatePool(ctx, f.pool.ID, func(p *garrison.Pool) error { p.Enabled = false; return nil }))
			}},
			{"job assignment", func(ctx context.Context) error {
				return second(s.UpsertJob(ctx, 7, func(j *garrison.Job, _ bool) error { j.RunnerName = "garm-stale"; return nil }))
			}},
		}
		for _, w := range writes {
			wantFenced(t, "stale "+w.name, w.write(a))
		}
		// Nothing of a's stale writes landed.
		_, err := s.Instance(ctx, "garm-stale")
		wantErr(t, err, garrison.ErrNotFound)
		wantEqual(t, "kept instance status", ok(s.Instance(ctx, "garm-kept")).get(t).Status, garrison.InstancePendingCreate)
		wantEqual(t, "a1 still there", ok(s.Instance(ctx, "garm-a1")).get(t).Name, "garm-a1")
		wantEqual(t, "pool enabled", ok(s.Pool(ctx, f.pool.ID)).get(t).Enabled, true)
		wantEqual(t, "job runner", ok(s.Job(ctx, 7)).get(t).RunnerName, "")
		if after := refusals(s); after != nil && after[store.ClaimPool]-before[store.ClaimPool] != uint64(len(writes)) {
			t.Fatalf("pool refusals counted %d, want %d", after[store.ClaimPool]-before[store.ClaimPool], len(writes))
		}
		// The new holder's writes, and unfenced ones, pass.
		for _, w := range writes {
			must(t, w.write(b))
		}
		must(t, s.AddInstanceEvent(ctx, "garm-kept", garrison.Event{Message: "unfenced", Type: garrison.EventStatus, Level: garrison.LevelInfo}))
	}},
	{"Fencing/ReleasedClaimStillFencesItsHolder", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		name := store.PoolClaim(f.pool.ID)
		a := store.WithFence(ctx, lease(t, s, name, "a", time.Hour))
		must(t, s.ReleaseLease(a, name, "a")) // a release is never fenced
		// Released but not taken: a's late write is not refused (no newer token exists).
		ok(s.CreateInstance(a, newInstance("garm-late", f.pool.ID))).get(t)
		lease(t, s, name, "b", time.Hour)
		wantFenced(t, "write after the claim was taken", second(s.CreateInstance(a, newInstance("garm-later", f.pool.ID))))
		// A fence naming a claim that never existed is refused too.
		ghost := store.WithFence(ctx, store.Fence{Claim: "pool/ghost", Token: 1})
		wantFenced(t, "write under a missing claim", second(s.CreateInstance(ghost, newInstance("garm-ghost", f.pool.ID))))
	}},
	{"Fencing/ScaleSetSession", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
		claim := func(owner string, ttl time.Duration) context.Context {
			t.Helper()
			sess, got, err := s.ClaimScaleSetSession(ctx, ss.ID, owner, ttl)
			must(t, err)
			if !got || sess.Token <= 0 {
				t.Fatalf("%s: claim %v, token %d", owner, got, sess.Token)
			}
			return store.WithFence(ctx, store.Fence{Claim: store.ScaleSetClaim(ss.ID), Token: sess.Token})
		}
		a := claim("a", time.Hour)
		must(t, s.RecordScaleSetMessage(a, ss.ID, "a", 3, 1))
		ok(s.CreateInstance(a, newScaleSetInstance("garm-ss-a", ss.ID))).get(t)
		claim("a", time.Millisecond) // a's renewal, then a pauses past it
		lapse()
		b := claim("b", time.Hour)
		if tok := ok(s.ScaleSet(ctx, ss.ID)).get(t).Session.Token; tok != tokenOf(b) {
			t.Fatalf("stored token %d, want b's %d", tok, tokenOf(b))
		}
		wantFenced(t, "stale runner create", second(s.CreateInstance(a, newScaleSetInstance("garm-ss-stale", ss.ID))))
		wantFenced(t, "stale message id", s.RecordScaleSetMessage(a, ss.ID, "a", 9, 4))
		wantFenced(t, "stale runner delete", s.DeleteInstance(a, "garm-ss-a"))
		must(t, s.RecordScaleSetMessage(b, ss.ID, "b", 5, 2))
		got := ok(s.ScaleSet(ctx, ss.ID)).get(t)
		wantEqual(t, "last message id", got.LastMessageID, 5)
		// A claim's release keeps the token: the next owner's is larger again.
		must(t, s.ReleaseScaleSetSession(b, ss.ID, "b"))
		if c := claim("c", time.Hour); tokenOf(c) <= tokenOf(b) {
			t.Fatalf("token after release and claim %d, want above %d", tokenOf(c), tokenOf(b))
		}
	}},
	{"Fencing/RaceWithTakeover", func(t *testing.T, _ Backend, s store.Store) {
		// a keeps writing while b takes its lapsed claim over and writes once: b's write
		// is the last one, whatever the interleaving.
		ctx := t.Context()
		f := setup(t, s)
		name := store.PoolClaim(f.pool.ID)
		a := store.WithFence(ctx, lease(t, s, name, "a", time.Millisecond))
		setDesc := func(ctx context.Context, d string) error {
			return second(s.UpdatePool(ctx, f.pool.ID, func(p *garrison.Pool) error { p.Image = d; return nil }))
		}
		var (
			wg      sync.WaitGroup
			refused = make(chan struct{})
		)
		wg.Go(func() {
			for i := range 2000 {
				err := setDesc(a, fmt.Sprintf("a-%d", i))
				if errors.Is(err, garrison.ErrFenced) {
					close(refused)
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
			t.Error("a was never refused")
			close(refused)
		})
		lapse()
		b := store.WithFence(ctx, lease(t, s, name, "b", time.Hour))
		must(t, setDesc(b, "b"))
		<-refused
		wg.Wait()
		wantFenced(t, "a after b wrote", setDesc(a, "a-late"))
		wantEqual(t, "image", ok(s.Pool(ctx, f.pool.ID)).get(t).Image, "b")
	}},
}

// tokenOf returns the token of the fence ctx carries.
func tokenOf(ctx context.Context) int64 {
	f, _ := store.FenceOf(ctx)
	return f.Token
}

// refusals returns the backend's fencing refusals by kind, or nil if it does not count
// them.
func refusals(s store.Store) map[string]uint64 {
	c, ok := s.(fenceCounter)
	if !ok {
		return nil
	}
	return c.FencingRefusals()
}

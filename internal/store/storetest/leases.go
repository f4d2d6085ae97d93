package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/store"
)

var leaseCases = []testCase{
	{"Leases/AcquireRenewRefuse", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		steps := []struct {
			holder string
			want   bool
		}{
			{"a", true},  // free: acquired
			{"a", true},  // renewed by its holder
			{"b", false}, // held by a, not expired
		}
		for i, st := range steps {
			got := held(t, s, "pool/p1", st.holder, time.Hour)
			if got != st.want {
				t.Fatalf("step %d: Lease(%s) = %v, want %v", i, st.holder, got, st.want)
			}
		}
		if !held(t, s, "pool/p2", "b", time.Hour) {
			t.Fatal("another lease name is independent")
		}
		if err := s.ReleaseLease(ctx, "pool/p1", "b"); err != nil {
			t.Fatal(err)
		}
		if held(t, s, "pool/p1", "b", time.Hour) {
			t.Fatal("a release by a non-holder freed the lease")
		}
		if err := s.ReleaseLease(ctx, "pool/p1", "a"); err != nil {
			t.Fatal(err)
		}
		if !held(t, s, "pool/p1", "b", time.Hour) {
			t.Fatal("a released lease was not free")
		}
	}},
	{"Leases/ExpiredIsTakenOver", func(t *testing.T, _ Backend, s store.Store) {
		if !held(t, s, "sweep/e1", "a", time.Millisecond) {
			t.Fatal("free lease not acquired")
		}
		time.Sleep(20 * time.Millisecond) // let the 1 ms lease lapse
		if !held(t, s, "sweep/e1", "b", time.Hour) {
			t.Fatal("expired lease not taken over")
		}
		if held(t, s, "sweep/e1", "a", time.Hour) {
			t.Fatal("the old holder got the lease back while b holds it")
		}
	}},
	{"Leases/OneWinnerUnderContention", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []string
		)
		for _, h := range []string{"r1", "r2", "r3", "r4", "r5", "r6"} {
			wg.Go(func() {
				_, got, err := s.Lease(ctx, "pool/contended", h, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if got {
					mu.Lock()
					winners = append(winners, h)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("winners %v, want exactly one", winners)
		}
	}},
}

// held takes or renews a lease and reports whether holder has it.
func held(t *testing.T, s store.Store, name, holder string, ttl time.Duration) bool {
	t.Helper()
	_, got, err := s.Lease(t.Context(), name, holder, ttl)
	must(t, err)
	return got
}

package sweep

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestSweepCachesTheHookListing checks that the sweep lists an entity's hooks once and
// then reuses what it found: the hook when garrison's webhook is installed, and its
// absence, until HookRecheck has passed or ForgetHook is called, when it is not (a hook
// installed by hand at another URL).
func TestSweepCachesTheHookListing(t *testing.T) {
	const hooksRoute = "GET /repos/{owner}/{repo}/hooks"
	tests := []struct {
		name          string
		installedHere bool
		wantAfter     int // hook listings after the recheck interval passed
		wantForget    int // hook listings after ForgetHook
	}{
		{"garrison's webhook installed", true, 1, 2},
		{"garrison's webhook missing", false, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSimEnv(t, forgesim.DeliveryFaults{})
			hookURL := e.hookURL
			if !tt.installedHere {
				hookURL += "/elsewhere"
			}
			clock := &fakeClock{now: time.Now()}
			sw, err := New(Options{Store: e.st, Now: clock.Now, HookRecheck: time.Hour,
				Forges: func(context.Context, garrison.Entity) (Forge, error) {
					return ghForge{Client: e.client, hookURL: hookURL}, nil
				}})
			must(t, err)
			e.sim.ResetCalls()
			for range 3 {
				_, err := sw.SweepOnce(t.Context())
				must(t, err)
				clock.advance(10 * time.Minute)
			}
			if n := hookListings(e.sim, hooksRoute); n != 1 {
				t.Fatalf("hooks listed %d times in 3 sweeps, want 1", n)
			}
			clock.advance(time.Hour)
			_, err = sw.SweepOnce(t.Context())
			must(t, err)
			if n := hookListings(e.sim, hooksRoute); n != tt.wantAfter {
				t.Fatalf("hooks listed %d times after the recheck interval, want %d", n, tt.wantAfter)
			}
			sw.ForgetHook(e.repo.ID)
			for range 2 {
				_, err = sw.SweepOnce(t.Context())
				must(t, err)
			}
			if n := hookListings(e.sim, hooksRoute); n != tt.wantForget {
				t.Fatalf("hooks listed %d times after ForgetHook, want %d", n, tt.wantForget)
			}
		})
	}
}

// hookListings counts the calls to route, whatever the credential.
func hookListings(sim *forgesim.Sim, route string) int {
	n := 0
	for k, v := range sim.Calls() {
		if k.Route == route {
			n += v
		}
	}
	return n
}

package scaleset_test

import (
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
)

func (s *simEnv) names() []string {
	var out []string
	for _, in := range s.instances() {
		out = append(out, in.Name)
	}
	return out
}

func (s *simEnv) online(name string) bool {
	for _, rn := range s.sim.Runners() {
		if rn.Name == name {
			return rn.Online
		}
	}
	return false
}

// TestSimStrandedRunnersRecycled: after an outage the service shows two idle runners
// offline for good, one of them busy in its eyes. The idle one is recycled once it has
// been offline for stranded_runner_timeout (plus jitter), not before, and replaced; the
// one the service says is busy is never recycled.
func TestSimStrandedRunnersRecycled(t *testing.T) {
	s := newSimEnv(t, false, 3, 2)
	clk := newClock()
	c := scaleset.New(scaleset.Options{Store: s.st, Services: s.hub, Owner: "replica-a", ClaimTTL: time.Hour,
		StrandedAfter: 10 * time.Minute, Now: clk.Now})
	s.until(c, 20, "two idle runners online", func() bool {
		n := s.names()
		return len(n) == 2 && s.online(n[0]) && s.online(n[1])
	})
	first := s.names()
	idle, busy := first[0], first[1]
	s.sim.StrandRunners(false, idle)
	s.sim.StrandRunners(true, busy)
	for elapsed := time.Duration(0); elapsed < 10*time.Minute; elapsed += time.Minute {
		if _, err := c.Step(t.Context(), s.ss.ID); err != nil {
			t.Fatal(err)
		}
		s.play()
		if !slices.Contains(s.names(), idle) {
			t.Fatalf("%s recycled after %v offline, before stranded_runner_timeout", idle, elapsed)
		}
		clk.advance(time.Minute)
	}
	s.until(c, 10, "the idle stranded runner recycled", func() bool {
		clk.advance(time.Minute)
		return !slices.Contains(s.names(), idle)
	})
	s.until(c, 10, "replaced", func() bool { return s.live() == 2 })
	for range 20 { // long past the threshold
		clk.advance(time.Minute)
		if _, err := c.Step(t.Context(), s.ss.ID); err != nil {
			t.Fatal(err)
		}
		s.play()
	}
	if !slices.Contains(s.names(), busy) {
		t.Fatalf("%s, busy on the service, was recycled", busy)
	}
	for _, in := range s.instances() {
		if in.Name == busy && (in.Status != garrison.InstanceRunning || in.AgentID == 0) {
			t.Fatalf("busy stranded runner touched: %+v", in)
		}
	}
}

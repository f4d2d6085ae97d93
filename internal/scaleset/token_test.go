package scaleset_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/scaleset"
)

// clock is a manual clock shared by the simulator and the listener.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 8, 6, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// counterValue reads a counter of the registry by name (0 when absent).
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

// TestSimQueueTokenRenewedAhead: with queue tokens of a minute and the clock moving on
// by several seconds a step, the listener renews each token before it expires: jobs
// are served, tokens are renewed many times and the queue never refuses one (no 401).
func TestSimQueueTokenRenewedAhead(t *testing.T) {
	for _, tc := range []struct {
		name string
		ttl  time.Duration
		step time.Duration
	}{
		{"one-minute tokens", time.Minute, 7 * time.Second},
		{"tokens shorter than two steps", 10 * time.Second, 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			s := newSimEnvWith(t, forgesim.Options{Now: clk.Now, ScaleSets: forgesim.ScaleSetOptions{
				Hold: 5 * time.Millisecond, QueueTokenTTL: tc.ttl}}, 3, 0)
			reg := prometheus.NewRegistry()
			c := scaleset.New(scaleset.Options{Store: s.st, Services: s.hub, Owner: "replica-a", ClaimTTL: time.Hour,
				Metrics: scaleset.NewMetrics(reg), Now: clk.Now})
			s.queue(6)
			s.until(c, 400, "jobs served", func() bool {
				clk.advance(tc.step)
				return s.completed() == 6
			})
			idle := 0
			s.until(c, 100, "idle rounds", func() bool { clk.advance(tc.step); idle++; return idle > 40 })
			if got := counterValue(t, reg, "garrison_scaleset_queue_token_refusals_total"); got != 0 {
				t.Errorf("the queue refused %v expired tokens; want none in steady state", got)
			}
			refreshes := 0
			for k, n := range s.sim.Calls() {
				if strings.HasPrefix(k.Route, "PATCH ") && strings.HasSuffix(k.Route, "/sessions/{sid}") {
					refreshes += n
				}
			}
			if refreshes == 0 {
				t.Errorf("no queue token was renewed; calls: %v", s.sim.Calls())
			}
		})
	}
}

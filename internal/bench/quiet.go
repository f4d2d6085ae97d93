package bench

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/garrison-ci/garrison/internal/forgesim"
)

// benchSettle is how long a quiet scenario lets the server finish its setup work
// (first reconcile of every pool, first webhooks) before it starts measuring.
const benchSettle = 15 * time.Second

// benchIdleSettle is idle's settle: long enough for the first sweep of every repository
// (found within a minute of its creation, swept within the next minute), whose listings
// are the first contact with the forge: full answers, where later sweeps get 304s.
const benchIdleSettle = 2*time.Minute + 15*time.Second

// runIdle sets up 100 repositories (scaled), each with one pool and no jobs, and
// counts the rate-limited forge calls over --duration, extrapolated per repo and hour.
func runIdle(ctx context.Context, e *env, r *Result) error {
	e.Sim.SetRateLimit(forgesim.RateLimitOptions{Window: 24 * time.Hour}) // no reset within a run
	repos, err := e.setupRepos(ctx, e.o.scaled(100, 2), false)
	if err != nil {
		return err
	}
	if err := e.createPools(ctx, repos, benchPoolSpec{perRepo: 1, max: 10}); err != nil {
		return err
	}
	m, err := e.quietWindow(ctx, r, benchIdleSettle)
	if err != nil {
		return err
	}
	hours := m.window.Hours()
	r.IdleAPICallsPerRepoHour = ptr(round2(float64(m.charged) / float64(len(repos)) / hours))
	r.Repos, r.Pools = ptr(len(repos)), ptr(len(e.pools))
	r.note("extrapolated from a %s window after a %s settle: %d rate-limited calls (%d calls in all; the difference is 304s); "+
		"the sweep runs every 10 min ±20%% per repository, so windows under 10 min sample it", m.window, benchIdleSettle, m.charged, m.total)
	r.note("first contact, during the settle: %.1f rate-limited calls per repository (first sweep's listings, hook lookup), once per server start",
		float64(m.settleCharged)/float64(len(repos)))
	return nil
}

// runBacklog queues 5,000 jobs (scaled) for 50 pools (scaled) of one runner each,
// with no runner taking them, and measures the server over --duration.
func runBacklog(ctx context.Context, e *env, r *Result) error {
	pools := e.o.scaled(50, 1)
	repos, err := e.setupRepos(ctx, (pools+4)/5, false)
	if err != nil {
		return err
	}
	if err := e.createPools(ctx, repos, benchPoolSpec{perRepo: 5, max: 1}); err != nil {
		return err
	}
	e.pools = e.pools[:pools]
	jobs := e.o.scaled(5000, 50)
	for i := range jobs {
		p := e.pools[i%len(e.pools)]
		id, err := e.Sim.QueueJob(p.repo, p.labels()...)
		if err != nil {
			return err
		}
		e.Queued[id] = time.Now()
	}
	fmt.Fprintf(e.out, "queued %d jobs for %d pools of at most 1 runner\n", jobs, pools)
	if _, err := e.quietWindow(ctx, r, benchSettle); err != nil {
		return err
	}
	r.JobsTotal, r.Pools = ptr(jobs), ptr(pools)
	insts, err := e.API.ListInstances(ctx)
	if err == nil {
		r.Instances = ptr(len(insts))
	}
	return nil
}

// quietMeasure is what a quiet window saw.
type quietMeasure struct {
	window         time.Duration
	charged, total int
	settleCharged  int // rate-limited calls during the settle
}

// quietWindow waits settle, then measures the server's CPU, peak RSS, log growth and
// forge calls over --duration.
func (e *env) quietWindow(ctx context.Context, r *Result, settle time.Duration) (quietMeasure, error) {
	fmt.Fprintf(e.out, "settling %s, then measuring for %s\n", settle, e.o.Duration)
	creds := map[string]bool{}
	settle0 := e.chargedCalls(creds)
	if err := sleepCtx(ctx, settle); err != nil {
		return quietMeasure{}, err
	}
	charged0 := e.chargedCalls(creds)
	e.Sim.ResetCalls()
	log0 := fileSize(e.Path("server.log"))
	before, err := e.server.stats()
	if err != nil {
		return quietMeasure{}, err
	}
	e.profileWindow(ctx, e.o.Duration)
	start := time.Now()
	if err := sleepCtx(ctx, e.o.Duration); err != nil {
		return quietMeasure{}, err
	}
	m := quietMeasure{window: time.Since(start)}
	after, err := e.server.stats()
	if err != nil {
		return m, err
	}
	r.setProc(before, after, m.window)
	r.LogBytesPerMinute = ptr(round1(float64(fileSize(e.Path("server.log"))-log0) / m.window.Minutes()))
	m.total = e.forgeCallFigures(r, 0)
	m.charged = e.chargedCalls(creds) - charged0
	m.settleCharged = charged0 - settle0
	return m, nil
}

// chargedCalls adds the credentials of the simulator's call counters to creds and sums
// their core budget used (calls answered 304 are refunded, as on GitHub).
func (e *env) chargedCalls(creds map[string]bool) int {
	for k := range e.Sim.Calls() {
		if k.Credential != "" {
			creds[k.Credential] = true
		}
	}
	n := 0
	for c := range creds {
		n += e.Sim.Budget(c, "core").Used
	}
	return n
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// fileSize is the size of a file, 0 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

package main

import (
	"context"
	"fmt"
	"math"
	"time"
)

// benchJobDuration is how long the bench's runners hold each job.
const benchJobDuration = time.Second

// benchDrainTimeout bounds the wait for the last jobs and instances after the load.
const benchDrainTimeout = 3 * time.Minute

// jobLoad is a job scenario: jobs spread evenly over spread, across pools.
type jobLoad struct {
	pools, poolsPerRepo int
	max                 uint
	jobs                int
	spread              time.Duration
}

// runBenchBurst queues 1,000 jobs (scaled) within --duration (10 s) across 50 pools
// (scaled) of at most 40 runners each.
func runBenchBurst(ctx context.Context, e *benchEnv, r *benchResult) error {
	return runJobLoad(ctx, e, r, jobLoad{pools: e.o.scaled(50, 1), poolsPerRepo: 5, max: 40,
		jobs: e.o.scaled(1000, 10), spread: e.o.duration})
}

// runBenchSteady queues 300 jobs per minute (scaled) for --duration across 50 pools
// (scaled), mixed labels (each job for one pool's label, in turn).
func runBenchSteady(ctx context.Context, e *benchEnv, r *benchResult) error {
	perMinute := e.o.scaled(300, 6)
	jobs := int(math.Round(float64(perMinute) * e.o.duration.Minutes()))
	return runJobLoad(ctx, e, r, jobLoad{pools: e.o.scaled(50, 1), poolsPerRepo: 5, max: 40,
		jobs: max(jobs, 1), spread: e.o.duration})
}

// runJobLoad sets up the pools, queues the jobs at an even pace while the bench's
// runners take them, waits for every job to complete and every instance to go, and
// fills in the figures.
func runJobLoad(ctx context.Context, e *benchEnv, r *benchResult, l jobLoad) error {
	repos, err := e.setupRepos(ctx, (l.pools+l.poolsPerRepo-1)/l.poolsPerRepo, false)
	if err != nil {
		return err
	}
	if err := e.createPools(ctx, repos, benchPoolSpec{perRepo: l.poolsPerRepo, max: l.max}); err != nil {
		return err
	}
	e.pools = e.pools[:l.pools]
	runners := newBenchRunners(e, benchJobDuration)
	rctx, stopRunners := context.WithCancel(ctx)
	defer stopRunners()
	go runners.run(rctx)
	fmt.Fprintf(e.out, "queueing %d jobs over %s across %d pools (max %d runners each)\n", l.jobs, l.spread, l.pools, l.max)
	before, err := e.server.stats()
	if err != nil {
		return err
	}
	e.sim.ResetCalls()
	e.profileWindow(ctx, l.spread+10*time.Second) // the drain runs on past the spread
	t0 := time.Now()
	jobPool, err := e.queueJobs(ctx, runners, l)
	if err != nil {
		return err
	}
	drainErr := e.drain(ctx, len(jobPool))
	after, err := e.server.stats()
	if err != nil {
		return err
	}
	r.setProc(before, after, time.Since(t0))
	if err := e.jobFigures(ctx, r, runners, jobPool, t0); err != nil {
		return err
	}
	if drainErr != nil {
		r.note("not drained: %v", drainErr)
	}
	return nil
}

// queueJobs queues l.jobs jobs, job i for pool i mod pools, evenly over l.spread, and
// returns each job's pool id.
func (e *benchEnv) queueJobs(ctx context.Context, runners *benchRunners, l jobLoad) (map[int64]string, error) {
	jobPool := map[int64]string{}
	gap := l.spread / time.Duration(l.jobs)
	start := time.Now()
	for i := range l.jobs {
		if wait := time.Until(start.Add(time.Duration(i) * gap)); wait > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
		}
		p := e.pools[i%len(e.pools)]
		runners.queued(p.label)
		at := time.Now()
		id, err := e.sim.QueueJobFor(p.repo, benchJobDuration, p.labels()...)
		if err != nil {
			return nil, fmt.Errorf("queueing a job: %w", err)
		}
		e.queued[id], jobPool[id] = at, p.id
	}
	return jobPool, nil
}

// drain waits until every job completed and garrison has no instance left, at most
// benchDrainTimeout, reporting progress every 5 s.
func (e *benchEnv) drain(ctx context.Context, jobs int) error {
	ctx, cancel := context.WithTimeout(ctx, benchDrainTimeout)
	defer cancel()
	start := time.Now()
	for {
		c := e.jobCounts()
		insts, err := e.api.ListInstances(ctx)
		if err == nil && c.done == jobs && len(insts) == 0 {
			return nil
		}
		fmt.Fprintf(e.out, "[%5.1fs] jobs %s | instances %d\n", time.Since(start).Seconds(), c, len(insts))
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %s: %d of %d jobs completed, %d instances left", benchDrainTimeout, c.done, jobs, len(insts))
		case <-time.After(5 * time.Second):
		}
	}
}

// jobFigures fills in latencies, forge calls, job counts and leaks.
func (e *benchEnv) jobFigures(ctx context.Context, r *benchResult, runners *benchRunners, jobPool map[int64]string, t0 time.Time) error {
	calls, err := readProvCalls(e.providerCallLog())
	if err != nil {
		return err
	}
	w2c := webhookToCreate(queuedDeliveries(e.sim.Deliveries()), jobPool, calls, t0)
	r.WebhookToCreate = pct(pointMS(w2c))
	r.chart, r.chartTitle = w2c, "webhook → CreateInstance started (ms) by webhook time"
	var toIdle, toStarted []float64
	completed := 0
	for _, j := range e.sim.Jobs() {
		queued, ours := e.queued[j.ID]
		if !ours {
			continue
		}
		if j.Status == "completed" && j.Conclusion == "success" {
			completed++
		}
		if started, idle, ok := runners.times(j.ID); ok {
			toStarted = append(toStarted, msSince(queued, started))
			toIdle = append(toIdle, math.Max(0, msSince(queued, idle)))
		}
	}
	r.QueuedToIdle, r.QueuedToStarted, r.BootDelayMS = pct(toIdle), pct(toStarted), ptr(e.o.bootDelay.Milliseconds())
	e.forgeCallFigures(r, len(jobPool))
	r.JobsTotal, r.JobsCompleted, r.Pools = ptr(len(jobPool)), ptr(completed), ptr(len(e.pools))
	r.ProviderCalls = countCommands(calls)
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), demoCleanupTimeout)
	defer cancel()
	l, err := e.countLeaks(lctx)
	if err != nil {
		return fmt.Errorf("counting leaks: %w", err)
	}
	r.InstancesLeaked = ptr(l.instances())
	if l.remaining > 0 {
		r.note("%d instances still in garrison at the end", l.remaining)
	}
	return nil
}

// forgeCallFigures sets api_calls_by_endpoint and, for jobs > 0, api_calls_per_job, from
// the simulator's counters since the last ResetCalls.
func (e *benchEnv) forgeCallFigures(r *benchResult, jobs int) int {
	total := 0
	r.APICallsByEndpoint = map[string]int{}
	for k, n := range e.sim.Calls() {
		total += n
		r.APICallsByEndpoint[k.Route] += n
	}
	if jobs > 0 {
		r.APICallsPerJob = ptr(round2(float64(total) / float64(jobs)))
	}
	return total
}

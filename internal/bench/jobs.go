package bench

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/garrison-ci/garrison/internal/testbed"
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

// runBurst queues 1,000 jobs (scaled) within --duration (10 s) across 50 pools
// (scaled) of at most 40 runners each.
func runBurst(ctx context.Context, e *env, r *Result) error {
	return runJobLoad(ctx, e, r, jobLoad{pools: e.o.scaled(50, 1), poolsPerRepo: 5, max: 40,
		jobs: e.o.scaled(1000, 10), spread: e.o.Duration})
}

// runSteady queues 300 jobs per minute (scaled) for --duration across 50 pools
// (scaled), mixed labels (each job for one pool's label, in turn).
func runSteady(ctx context.Context, e *env, r *Result) error {
	perMinute := e.o.scaled(300, 6)
	jobs := int(math.Round(float64(perMinute) * e.o.Duration.Minutes()))
	return runJobLoad(ctx, e, r, jobLoad{pools: e.o.scaled(50, 1), poolsPerRepo: 5, max: 40,
		jobs: max(jobs, 1), spread: e.o.Duration})
}

// runJobLoad sets up the pools, queues the jobs at an even pace while the bench's
// runners take them, waits for every job to complete and every instance to go, and
// fills in the figures.
func runJobLoad(ctx context.Context, e *env, r *Result, l jobLoad) error {
	repos, err := e.setupRepos(ctx, (l.pools+l.poolsPerRepo-1)/l.poolsPerRepo, false)
	if err != nil {
		return err
	}
	if err := e.createPools(ctx, repos, benchPoolSpec{perRepo: l.poolsPerRepo, max: l.max}); err != nil {
		return err
	}
	e.pools = e.pools[:l.pools]
	return e.runLoad(ctx, r, l)
}

// runLoad queues the jobs of l across e.pools (pools or scale sets) while the bench's
// runners take them, waits for every job to complete and every instance to go, and
// fills in the figures.
func (e *env) runLoad(ctx context.Context, r *Result, l jobLoad) error {
	runners := newBenchRunners(e, benchJobDuration)
	rctx, stopRunners := context.WithCancel(ctx)
	defer stopRunners()
	go runners.run(rctx)
	fmt.Fprintf(e.out, "queueing %d jobs over %s across %d pools (max %d runners each)\n", l.jobs, l.spread, l.pools, l.max)
	before, err := e.stats()
	if err != nil {
		return err
	}
	machineBefore, err := readMachineCPU()
	if err != nil {
		return err
	}
	intakeBefore := e.serverIntake(ctx, r)
	e.Sim.ResetCalls()
	e.profileWindow(ctx, l.spread+10*time.Second) // the drain runs on past the spread
	t0 := time.Now()
	jobPool, err := e.queueJobs(ctx, runners, l)
	if err != nil {
		return err
	}
	drainErr := e.drain(ctx, len(jobPool))
	after, err := e.stats()
	if err != nil {
		return err
	}
	r.setProc(before, after, time.Since(t0))
	if machineAfter, err := readMachineCPU(); err == nil {
		r.setMachine(machineBefore, machineAfter)
	}
	if intakeBefore != nil {
		if intakeAfter := e.serverIntake(ctx, r); intakeAfter != nil {
			r.setServerIntake(*intakeBefore, *intakeAfter)
		}
	}
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
func (e *env) queueJobs(ctx context.Context, runners *benchRunners, l jobLoad) (map[int64]string, error) {
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
		id, err := e.Sim.QueueJobFor(p.repo, benchJobDuration, p.labels()...)
		if err != nil {
			return nil, fmt.Errorf("queueing a job: %w", err)
		}
		e.Queued[id], jobPool[id] = at, p.id
	}
	return jobPool, nil
}

// serverIntake scrapes the server's intake histogram (one server only: the replicas
// scenario has several); nil, with a note, when it cannot.
func (e *env) serverIntake(ctx context.Context, r *Result) *intakeHistograms {
	if e.replicas != nil {
		return nil
	}
	h, err := e.scrapeIntake(ctx)
	if err != nil {
		r.note("the server's webhook answer times: %v", err)
		return nil
	}
	return &h
}

// drain waits until every job completed and garrison has no instance left, at most
// benchDrainTimeout, reporting progress every 5 s.
func (e *env) drain(ctx context.Context, jobs int) error {
	ctx, cancel := context.WithTimeout(ctx, benchDrainTimeout)
	defer cancel()
	start := time.Now()
	for {
		c := e.JobCounts()
		insts, err := e.API.ListInstances(ctx)
		if err == nil && c.Done == jobs && len(insts) == 0 {
			return nil
		}
		fmt.Fprintf(e.out, "[%5.1fs] jobs %s | instances %d\n", time.Since(start).Seconds(), c, len(insts))
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %s: %d of %d jobs completed, %d instances left", benchDrainTimeout, c.Done, jobs, len(insts))
		case <-time.After(5 * time.Second):
		}
	}
}

// jobFigures fills in latencies, forge calls, job counts and leaks.
func (e *env) jobFigures(ctx context.Context, r *Result, runners *benchRunners, jobPool map[int64]string, t0 time.Time) error {
	calls, err := readProvCalls(e.providerCallLog())
	if err != nil {
		return err
	}
	deliveries := e.Sim.Deliveries()
	w2c := webhookToCreate(queuedDeliveries(deliveries), jobPool, calls, t0)
	r.WebhookToCreate = pct(pointMS(w2c))
	r.chart, r.chartTitle = w2c, "webhook → CreateInstance started (ms) by webhook time"
	posts, unanswered := webhookPosts(deliveries, t0)
	r.WebhookPost = pct(posts)
	if unanswered > 0 {
		r.note("%d webhook deliveries got no answer from the server", unanswered)
	}
	var toIdle, toStarted []float64
	completed := 0
	for _, j := range e.Sim.Jobs() {
		queued, ours := e.Queued[j.ID]
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
	r.QueuedToIdle, r.QueuedToStarted, r.BootDelayMS = pct(toIdle), pct(toStarted), ptr(e.o.BootDelay.Milliseconds())
	e.forgeCallFigures(r, len(jobPool))
	r.JobsTotal, r.JobsCompleted, r.Pools = ptr(len(jobPool)), ptr(completed), ptr(len(e.pools))
	r.ProviderCalls = countCommands(calls)
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), testbed.CleanupTimeout)
	defer cancel()
	l, err := e.CountLeaks(lctx)
	if err != nil {
		return fmt.Errorf("counting leaks: %w", err)
	}
	r.InstancesLeaked = ptr(l.Instances())
	if l.Remaining > 0 {
		r.note("%d instances still in garrison at the end", l.Remaining)
	}
	return nil
}

// forgeCallFigures sets api_calls_by_endpoint and, for jobs > 0, api_calls_per_job, from
// the simulator's counters since the last ResetCalls.
func (e *env) forgeCallFigures(r *Result, jobs int) int {
	total := 0
	r.APICallsByEndpoint = map[string]int{}
	for k, n := range e.Sim.Calls() {
		total += n
		r.APICallsByEndpoint[k.Route] += n
	}
	if jobs > 0 {
		r.APICallsPerJob = ptr(round2(float64(total) / float64(jobs)))
	}
	return total
}

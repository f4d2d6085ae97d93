package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"
)

// The shape of the replica burst.
const (
	burstJobs      = 28
	burstBootDelay = 300 * time.Millisecond
	burstLeaseTTL  = 5 * time.Second
	// burstCallSlack is how many more forge calls three replicas may make than one: per
	// job, and per minute of the missed-webhook sweep.
	burstCallSlack = 1.25
	// burstReplicaCalls is how many calls each replica makes once, on its own (it lists
	// the runner downloads and its webhook), beyond what one replica makes.
	burstReplicaCalls = 2
)

// The replicas' missed-webhook sweeps: every replicaSweepInterval, give or take
// replicaSweepJitter of it (the reconciler's default jitter), per entity.
const (
	replicaSweepInterval = 5 * time.Second
	replicaSweepJitter   = 0.2
)

// runsListing is the forge route a sweep lists the runs of its repository with.
const runsListing = "GET /repos/{owner}/{repo}/actions/runs"

// sweepRoutes are the forge routes of the missed-webhook sweep: periodic work, whose
// calls grow with the run's length and with the jobs in flight at each sweep, not with
// the jobs served. A sweep lists the queued and the in-progress runs once each.
var sweepRoutes = map[string]bool{
	runsListing: true,
	"GET /repos/{owner}/{repo}/actions/runs/{id}/jobs":                     true,
	"GET /repos/{owner}/{repo}/hooks":                                      true,
	"GET /repos/{owner}/{repo}/hooks/{id}/deliveries":                      true,
	"GET /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}":           true,
	"POST /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}/attempts": true,
}

// burstFigures is what one burst measured.
type burstFigures struct {
	served       served
	jobCalls     int         // forge calls other than the sweep's
	sweeps       []time.Time // when each sweep listed the queued runs, until nothing was left
	minutes      float64     // the length of the run, from the burst until every job completed
	callsByRoute map[string]int
	requests     []int64 // proxied to each replica
}

func (f burstFigures) callsPerJob() float64     { return float64(f.jobCalls) / float64(f.served.jobs) }
func (f burstFigures) sweepsPerMinute() float64 { return float64(len(f.sweeps)) / f.minutes }

// closestSweeps is the shortest time between two sweeps, and false with fewer than two.
func (f burstFigures) closestSweeps() (time.Duration, bool) {
	if len(f.sweeps) < 2 {
		return 0, false
	}
	closest := f.sweeps[1].Sub(f.sweeps[0])
	for i := 2; i < len(f.sweeps); i++ {
		closest = min(closest, f.sweeps[i].Sub(f.sweeps[i-1]))
	}
	return closest, true
}

// TestReplicasBurst queues a burst of jobs over five pools and a scale set, once with one
// replica and once with three sharing one PostgreSQL database, their webhooks, API calls
// and instance callbacks spread round robin over the replicas. With three, every job must
// be served exactly once (one runner per job, one JIT config per runner), with no more
// forge calls per job than with one (the sweep's apart: its cost per sweep follows the
// jobs in flight, which the slower run on three replicas has more of), one replica at a
// time sweeping the repository, no more instances per job, and nothing left behind.
func TestReplicasBurst(t *testing.T) {
	dsn := skipReplicas(t)
	var one, three burstFigures
	t.Run("one replica", func(t *testing.T) { one = replicaBurst(t, dsn, 1) })
	t.Run("three replicas", func(t *testing.T) { three = replicaBurst(t, dsn, 3) })
	if t.Failed() {
		return
	}
	t.Logf("forge calls per job (the sweep's apart): one replica %.2f, three %.2f; sweeps per minute: one %.1f, three %.1f; instances per job: one %.2f, three %.2f",
		one.callsPerJob(), three.callsPerJob(), one.sweepsPerMinute(), three.sweepsPerMinute(),
		one.served.instancesPerJob, three.served.instancesPerJob)
	t.Logf("forge calls by route: one replica %v; three %v", one.callsByRoute, three.callsByRoute)
	if limit := float64(one.jobCalls)*burstCallSlack + 2*burstReplicaCalls; float64(three.jobCalls) > limit {
		t.Errorf("three replicas made %d forge calls for %d jobs (the sweep's apart), one made %d: more than %.0f",
			three.jobCalls, three.served.jobs, one.jobCalls, limit)
	}
	// The sweep claim: one replica at a time sweeps the repository, so sweeps are an
	// interval apart as with one. Replicas that each swept on their own would sweep in
	// between. (Comparing the rates instead is noise: a run of ten seconds or so holds
	// one to three sweeps.)
	shortest := time.Duration(float64(replicaSweepInterval) * (1 - replicaSweepJitter))
	for _, f := range []struct {
		name string
		burstFigures
	}{{"one replica", one}, {"three replicas", three}} {
		t.Logf("%s: sweeps at %v", f.name, offsets(f.sweeps))
		if gap, ok := f.closestSweeps(); ok && gap < shortest {
			t.Errorf("%s swept the repository %v apart: one sweeper waits at least %v",
				f.name, gap.Round(time.Millisecond), shortest)
		}
	}
	// Jobs any pool can serve and warm runners make the count vary by a runner or two.
	if extra := (three.served.instancesPerJob - one.served.instancesPerJob) * burstJobs; extra > 2 {
		t.Errorf("three replicas made %.0f more runners for %d jobs than one", extra, burstJobs)
	}
	for i, n := range three.requests {
		if n == 0 {
			t.Errorf("replica %d got no request through the load balancer: %v", i, three.requests)
		}
	}
}

// replicaBurst runs the burst on n replicas and returns its figures.
func replicaBurst(t *testing.T, dsn string, n int) burstFigures {
	r := newReplicaRun(t, dsn, replicaShape{replicas: n, leaseTTL: burstLeaseTTL, bootDelay: burstBootDelay})
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	r.Sim.ResetCalls()
	start := time.Now()
	ids := r.queueMixed(t, rng, burstJobs)
	r.waitCompleted(t, ids, 3*time.Minute)
	t.Logf("%d replicas: %d jobs completed %s after the burst", n, len(ids), time.Since(start).Round(100*time.Millisecond))
	minutes := time.Since(start).Minutes()
	calls, byRoute := r.garrisonForgeCalls()
	eventually(t, "the ledger to agree with the forge", func() (bool, string) { return r.ledgerSettled(t, ids) })
	s := r.servedOnce(ids)
	s.check(t, len(ids), true)
	if dup := r.instanceNamesUnique(t); len(dup) > 0 {
		t.Errorf("instances listed twice: %v", dup)
	}
	r.scaleDownAll(t)
	expectNoLeaks(t, r.Bed, 3*time.Minute)
	sweeps := r.sweepTimes(t) // until now: a run's few sweeps are too few to compare
	f := burstFigures{served: s, jobCalls: calls, minutes: minutes, callsByRoute: byRoute, requests: r.requests(),
		sweeps: sweeps}
	for route, n := range byRoute {
		if sweepRoutes[route] {
			f.jobCalls -= n
		}
	}
	t.Logf("%d replicas: %d runners for %d jobs, %d forge calls; requests per replica %v", n, s.jitNames, len(ids), calls, f.requests)
	if err := r.reps.StopAll(); err != nil {
		t.Errorf("stopping the replicas: %v", err)
	}
	return f
}

// The shape of the chaos run.
const (
	chaosRounds       = 10
	chaosJobsUpFront  = 8
	chaosJobsPerRound = 4 // half before the kill, half while one replica is dead and one paused
	chaosLeaseTTL     = 2 * time.Second
	// chaosPause is how long the paused replica stays stopped: past its claims' expiry.
	chaosPause       = 2*chaosLeaseTTL + 500*time.Millisecond
	chaosBootDelay   = time.Second
	chaosMaxInterval = 1500 * time.Millisecond
)

// Metric families the chaos run reports.
const (
	fencingRefusalsMetric = "garrison_fencing_refusals_total"
	leaseTakeoversMetric  = "garrison_lease_takeovers_total"
)

// TestReplicasChaos runs three replicas on one PostgreSQL database while jobs keep
// coming, and in each of ten rounds SIGKILLs one replica, SIGSTOPs another for longer
// than the lease TTL (so the others take its claims over) and then SIGCONTs it (it goes
// on with what it was doing, under claims it no longer holds), and restarts the killed
// one. Then every job must have been served exactly once, no instance or runner created
// twice, the ledger must agree with the forge, and once the pools are scaled down
// nothing may be left in garrison, the provider, the forge or the process table. The
// fencing refusals (writes of a replica that lost its claim, refused by the database)
// and the claim takeovers are counted from the replicas' /metrics and logged.
func TestReplicasChaos(t *testing.T) {
	dsn := skipReplicas(t)
	seed := crashSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed))
	r := newReplicaRun(t, dsn, replicaShape{replicas: 3, leaseTTL: chaosLeaseTTL, bootDelay: chaosBootDelay})
	c := &chaosCounts{}
	start := time.Now()
	ids := r.queueMixed(t, rng, chaosJobsUpFront)
	for round := range chaosRounds {
		ids = append(ids, r.chaosRound(t, rng, round, c)...)
	}
	t.Logf("%d rounds of kill, pause past the lease and restart in %s; %d jobs queued",
		chaosRounds, time.Since(start).Round(time.Second), len(ids))

	r.waitCompleted(t, ids, 4*time.Minute)
	t.Logf("every job completed %s after the first was queued", time.Since(start).Round(time.Second))
	eventually(t, "the ledger to agree with the forge", func() (bool, string) { return r.ledgerSettled(t, ids) })
	s := r.servedOnce(ids)
	s.check(t, len(ids), false)
	if dup := r.instanceNamesUnique(t); len(dup) > 0 {
		t.Errorf("instances listed twice: %v", dup)
	}
	r.scaleDownAll(t)
	expectNoLeaks(t, r.Bed, 3*time.Minute)
	for i := range r.reps.Procs {
		c.collect(t, r, i)
	}
	t.Logf("chaos: %d jobs served once each by %d runners; %d runner names registered (%.2f per job), %d of them again after a lost create attempt %v; %.0f fencing refusals, %.0f claim takeovers; requests per replica %v",
		s.jobs, s.runners, s.jitNames, s.instancesPerJob, len(s.duplicateJIT), s.duplicateJIT, c.refusals, c.takeovers, r.requests())
	if err := r.reps.StopAll(); err != nil {
		t.Errorf("stopping the replicas: %v", err)
	}
}

// chaosCounts adds up the counters of replica processes over their lives (a killed
// replica's counters die with it: they are read just before).
type chaosCounts struct{ refusals, takeovers float64 }

// collect adds replica i's counters.
func (c *chaosCounts) collect(t *testing.T, r *replicaRun, i int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	for _, m := range []struct {
		name string
		sum  *float64
	}{{fencingRefusalsMetric, &c.refusals}, {leaseTakeoversMetric, &c.takeovers}} {
		v, err := r.reps.Counter(ctx, i, m.name)
		if err != nil {
			t.Logf("reading %s of replica %d: %v", m.name, i, err)
			continue
		}
		*m.sum += v
	}
}

// chaosRound queues jobs, kills one replica at a random moment, pauses another past the
// lease TTL while more jobs come, resumes it, restarts the killed one, and returns the
// jobs it queued.
func (r *replicaRun) chaosRound(t *testing.T, rng *rand.Rand, round int, c *chaosCounts) []int64 {
	t.Helper()
	kill := rng.IntN(r.n)
	pause := (kill + 1 + rng.IntN(r.n-1)) % r.n
	ids := r.queueMixed(t, rng, chaosJobsPerRound/2)
	time.Sleep(200*time.Millisecond + time.Duration(rng.Int64N(int64(chaosMaxInterval))))
	c.collect(t, r, kill)
	r.reps.Procs[kill].Kill()
	if err := r.reps.Procs[pause].Pause(); err != nil {
		t.Fatalf("pausing replica %d: %v", pause, err)
	}
	ids = append(ids, r.queueMixed(t, rng, chaosJobsPerRound-chaosJobsPerRound/2)...)
	time.Sleep(chaosPause + time.Duration(rng.Int64N(int64(time.Second))))
	if err := r.reps.Procs[pause].Resume(); err != nil {
		t.Fatalf("resuming replica %d: %v", pause, err)
	}
	time.Sleep(time.Duration(rng.Int64N(int64(time.Second)))) // the resumed one acts on its old claims
	if err := r.reps.Procs[kill].Start(t.Context()); err != nil {
		t.Fatalf("restarting replica %d: %v", kill, err)
	}
	t.Logf("round %d: killed replica %d, paused replica %d for more than %s; %s", round, kill, pause, chaosPause,
		fmt.Sprintf("%d of %d jobs completed", r.CompletedJobs(testbedIDs(r.Queued)), len(r.Queued)))
	return ids
}

// requests returns the requests the load balancer sent to each replica.
func (r *replicaRun) requests() []int64 {
	out := make([]int64, len(r.reps.LB.Requests))
	for i := range r.reps.LB.Requests {
		out[i] = r.reps.LB.Requests[i].Load()
	}
	return out
}

// testbedIDs returns the ids of a bed's Queued map.
func testbedIDs(queued map[int64]time.Time) []int64 {
	ids := make([]int64, 0, len(queued))
	for id := range queued {
		ids = append(ids, id)
	}
	return ids
}

// sweepTimes returns when each sweep since the calls were reset listed the queued runs
// (its first call, the first page; it lists the runs in progress after the queued runs'
// jobs).
func (r *replicaRun) sweepTimes(t *testing.T) []time.Time {
	var sweeps []time.Time
	for _, c := range r.Sim.CallLog() {
		if c.Route != runsListing || c.Credential != r.PAT {
			continue
		}
		q, err := url.ParseQuery(c.Query)
		if err != nil {
			t.Fatalf("the forge's call log: %s?%s: %v", c.Route, c.Query, err)
		}
		if page := q.Get("page"); q.Get("status") == "queued" && (page == "" || page == "1") {
			sweeps = append(sweeps, c.At)
		}
	}
	return sweeps
}

// offsets formats times as offsets from the first, for a failure message.
func offsets(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, at := range ts {
		out[i] = "+" + at.Sub(ts[0]).Round(10*time.Millisecond).String()
	}
	return out
}

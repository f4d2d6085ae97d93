package bench

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// replicasScenario is the scenario of several replicas on one PostgreSQL database.
const replicasScenario = "replicas"

// The replicas scenario's shape.
const (
	defaultReplicas = 3
	// benchLeaseTTL is the replicas' [server] lease_ttl: a dead replica's pools wait
	// about this long for another.
	benchLeaseTTL = 5 * time.Second
	// takeoverTimeout bounds the wait for a killed replica's pools to be served again.
	takeoverTimeout = 2 * time.Minute
	// takeoverPoll is how often the takeover is looked at.
	takeoverPoll = 50 * time.Millisecond
)

// replicaSet is the scenario's replicas and the database they share.
type replicaSet struct {
	*testbed.Replicas
	drop func(context.Context) error
}

// startReplicas makes the database and starts the replicas behind the testbed's load
// balancer, with the provider wrapper that logs every call.
func (e *env) startReplicas(ctx context.Context, provider string) error {
	dsn, drop, err := e.o.NewDatabase(ctx)
	if err != nil {
		return fmt.Errorf("making the replicas' database: %w", err)
	}
	reps, err := e.StartReplicas(ctx, testbed.ReplicaOptions{N: e.o.replicas(), Garrison: e.o.Server, DSN: dsn,
		LeaseTTL: benchLeaseTTL, Provider: provider})
	if err != nil {
		return errors.Join(err, drop(context.WithoutCancel(ctx)))
	}
	e.replicas = &replicaSet{Replicas: reps, drop: drop}
	fmt.Fprintf(e.out, "garrison-dev bench %s (scale %v) in %s\n  %d replicas behind %s, lease TTL %s  forge simulator %s\n",
		e.o.Scenario, e.o.Scale, e.Dir, e.o.replicas(), e.URL, benchLeaseTTL, e.Sim.URL())
	return nil
}

// stats sums the replicas' /proc figures (those running).
func (s *replicaSet) stats() (procStats, error) {
	var sum procStats
	for _, p := range s.Procs {
		if pid := p.Pid(); pid != 0 {
			st, err := pidStats(pid)
			if err != nil {
				return sum, err
			}
			sum = sum.add(st)
		}
	}
	return sum, nil
}

// close stops the replicas (SIGTERM, a clean exit), then drops the database.
func (s *replicaSet) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), testbed.CleanupTimeout)
	defer cancel()
	return errors.Join(s.StopAll(), s.Close(), s.drop(ctx))
}

// runReplicas runs a burst on three replicas (300 jobs, scaled, within --duration across
// 20 pools), then kills the replica that holds the most pools and times how long until
// another replica holds them and until a job queued on each of them at the kill started.
func runReplicas(ctx context.Context, e *env, r *Result) error {
	pools := e.o.scaled(20, 3)
	if err := runJobLoad(ctx, e, r, jobLoad{pools: pools, poolsPerRepo: 5, max: 40,
		jobs: e.o.scaled(300, 12), spread: e.o.Duration}); err != nil {
		return err
	}
	r.note("%d replicas on one PostgreSQL database behind a round-robin load balancer; lease TTL %s", e.o.replicas(), benchLeaseTTL)
	r.Replicas = ptr(e.o.replicas())
	if e.o.replicas() < 2 {
		return nil // no one to take over
	}
	return e.takeover(ctx, r)
}

// replicas is the replicas scenario's number of servers.
func (o Options) replicas() int {
	if o.Replicas == 0 {
		return defaultReplicas
	}
	return o.Replicas
}

// takeover kills the replica holding the most pools and measures its pools' takeover.
func (e *env) takeover(ctx context.Context, r *Result) error {
	victim, held, err := e.busiestReplica(ctx)
	if err != nil {
		return err
	}
	runners := newBenchRunners(e, benchJobDuration)
	rctx, stopRunners := context.WithCancel(ctx)
	defer stopRunners()
	go runners.run(rctx)
	byID := map[string]benchPool{}
	for _, p := range e.pools {
		byID[p.id] = p
	}
	killed := time.Now()
	e.replicas.Procs[victim].Kill()
	jobs := map[int64]bool{}
	for _, id := range held {
		p := byID[id]
		runners.queued(p.label)
		jid, err := e.Sim.QueueJobFor(p.repo, benchJobDuration, p.labels()...)
		if err != nil {
			return err
		}
		jobs[jid] = true
	}
	fmt.Fprintf(e.out, "killed replica %d, which held %d of %d pools; a job queued on each\n", victim, len(held), len(e.pools))
	claimed, err := e.waitClaimed(ctx, held, killed)
	if err != nil {
		return err
	}
	started, err := waitStarted(ctx, runners, jobs, killed)
	if err != nil {
		return err
	}
	r.TakeoverClaimMS, r.TakeoverServedMS = ptr(msSince(killed, claimed)), ptr(msSince(killed, started))
	r.TakeoverPools = ptr(len(held))
	return nil
}

// busiestReplica returns the index of the replica holding the most pools, and the ids
// of those pools.
func (e *env) busiestReplica(ctx context.Context) (int, []string, error) {
	reps, err := e.API.ListReplicas(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("listing the replicas: %w", err)
	}
	claims, err := e.API.ListClaims(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("listing the claims: %w", err)
	}
	held := map[int][]string{}
	for _, c := range claims {
		if c.Kind != "pool" || !c.Held {
			continue
		}
		if i := e.replicaIndex(reps, c.Holder); i >= 0 {
			held[i] = append(held[i], c.Key)
		}
	}
	best := -1
	for i, ids := range held {
		if best < 0 || len(ids) > len(held[best]) || (len(ids) == len(held[best]) && i < best) {
			best = i
		}
	}
	if best < 0 {
		return 0, nil, errors.New("no replica holds a pool")
	}
	return best, held[best], nil
}

// replicaIndex returns the index of the process of the replica named id, or -1.
func (e *env) replicaIndex(reps []apiv1.Replica, id string) int {
	for _, rp := range reps {
		if rp.ID != id {
			continue
		}
		for i, p := range e.replicas.Procs {
			if u, err := url.Parse(p.URL); err == nil && sameListen(rp.Address, u.Host) {
				return i
			}
		}
	}
	return -1
}

// sameListen reports whether a replica's advertised address is the listen address host
// (an address may be a URL or host:port).
func sameListen(advertised, host string) bool {
	if u, err := url.Parse(advertised); err == nil && u.Host != "" {
		advertised = u.Host
	}
	return advertised == host
}

// waitClaimed waits until every pool of ids is held by another replica again, and
// returns when that was first seen.
func (e *env) waitClaimed(ctx context.Context, ids []string, since time.Time) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, takeoverTimeout)
	defer cancel()
	for {
		claims, err := e.API.ListClaims(ctx)
		if err == nil {
			n := 0
			for _, c := range claims {
				if c.Kind == "pool" && c.Held && slices.Contains(ids, c.Key) && c.ExpiresAt.After(since.Add(benchLeaseTTL)) {
					n++
				}
			}
			if n == len(ids) {
				return time.Now(), nil
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("the killed replica's pools were not claimed again within %s", takeoverTimeout)
		case <-time.After(takeoverPoll):
		}
	}
}

// waitStarted waits until every job of jobs started, and returns when the last did.
func waitStarted(ctx context.Context, runners *benchRunners, jobs map[int64]bool, since time.Time) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, takeoverTimeout)
	defer cancel()
	for {
		var last time.Time
		n := 0
		for id := range jobs {
			if at, _, ok := runners.times(id); ok {
				n++
				if at.After(last) {
					last = at
				}
			}
		}
		if n == len(jobs) {
			return last, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%d of %d jobs queued at the kill started within %s of it", n, len(jobs), time.Since(since).Round(time.Second))
		case <-time.After(takeoverPoll):
		}
	}
}

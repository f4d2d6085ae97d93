package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Scale scenario bounds.
const (
	benchFleetTimeout     = 20 * time.Minute // building the fleet
	benchReconcileTimeout = 5 * time.Minute  // waiting for every pool's repair after a restart
)

// runBenchScale builds 10,000 idle instances (scaled) across 1,000 pools (scaled),
// restarts the server gracefully to time one full reconcile, then measures it idle for
// half of --duration and under 10% churn per minute for the other half.
func runBenchScale(ctx context.Context, e *benchEnv, r *benchResult) error {
	if err := e.buildFleet(ctx, r); err != nil {
		return err
	}
	if err := e.server.stop(); err != nil {
		return err
	}
	d, err := e.restartAndReconcile(ctx)
	if err != nil {
		return err
	}
	r.FullReconcileMS = ptr(round1(float64(d.fromReady.Microseconds()) / 1000))
	half := e.o.duration / 2
	fmt.Fprintf(e.out, "full reconcile after a graceful restart: %s; idle for %s\n", d.fromReady, half)
	before, err := e.server.stats()
	if err != nil {
		return err
	}
	if err := sleepCtx(ctx, half); err != nil {
		return err
	}
	mid, err := e.server.stats()
	if err != nil {
		return err
	}
	r.setProc(before, mid, half)
	fmt.Fprintf(e.out, "churning 10%% of the instances per minute for %s\n", half)
	churned, err := e.churn(ctx, half)
	if err != nil {
		return err
	}
	after, err := e.server.stats()
	if err != nil {
		return err
	}
	var churnR benchResult
	churnR.setProc(mid, after, half)
	r.PeakRSSMB = churnR.PeakRSSMB
	r.note("idle: %.2f%% of a core over %s; churn (%d instances deleted through the API): %.2f%% of a core, %.2fs CPU over %s",
		*r.CPUPercentOfCore, half, churned, *churnR.CPUPercentOfCore, *churnR.CPUSeconds, half)
	return nil
}

// runBenchRestart builds scale's fleet, kills the server (SIGKILL) and restarts it, and
// times until every pool was repaired.
func runBenchRestart(ctx context.Context, e *benchEnv, r *benchResult) error {
	if err := e.buildFleet(ctx, r); err != nil {
		return err
	}
	if err := e.server.kill(); err != nil {
		return err
	}
	d, err := e.restartAndReconcile(ctx)
	if err != nil {
		return err
	}
	r.RestartReconciledS = ptr(round2(d.fromStart.Seconds()))
	r.FullReconcileMS = ptr(round1(float64(d.fromReady.Microseconds()) / 1000))
	st, err := e.server.stats()
	if err == nil {
		r.PeakRSSMB = ptr(round1(float64(st.hwmKB) / 1024))
		r.CPUSeconds = ptr(round2(st.cpu.Seconds()))
	}
	return nil
}

// buildFleet creates the pools with min idle runners so that they hold the instances,
// and waits until garrison reports them all running.
func (e *benchEnv) buildFleet(ctx context.Context, r *benchResult) error {
	pools, insts := e.o.scaled(1000, 2), e.o.scaled(10000, 20)
	per := uint(max(1, insts/pools))
	repos, err := e.setupRepos(ctx, (pools+9)/10, false)
	if err != nil {
		return err
	}
	if err := e.createPools(ctx, repos, benchPoolSpec{perRepo: 10, max: per, minIdle: per}); err != nil {
		return err
	}
	// Every pool made holds instances (the last repository's too), so all are counted.
	want := len(e.pools) * int(per)
	r.Repos, r.Pools, r.Instances = ptr(len(repos)), ptr(len(e.pools)), ptr(want)
	fmt.Fprintf(e.out, "building %d instances across %d pools\n", want, len(e.pools))
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, benchFleetTimeout)
	defer cancel()
	for {
		n, err := e.runningInstances(ctx)
		if err == nil && n >= want {
			fmt.Fprintf(e.out, "fleet of %d running after %s\n", n, time.Since(start).Round(time.Second))
			return nil
		}
		fmt.Fprintf(e.out, "[%5.1fs] %d of %d running\n", time.Since(start).Seconds(), n, want)
		if err := sleepCtx(ctx, 5*time.Second); err != nil {
			return fmt.Errorf("building the fleet: %d of %d running: %w", n, want, err)
		}
	}
}

// runningInstances counts garrison's instances in status running.
func (e *benchEnv) runningInstances(ctx context.Context) (int, error) {
	insts, err := e.api.ListInstances(ctx)
	n := 0
	for _, in := range insts {
		if in.Status == "running" {
			n++
		}
	}
	return n, err
}

// reconcileTimes is how long after a restart every pool had been repaired.
type reconcileTimes struct {
	fromStart, fromReady time.Duration
}

// restartAndReconcile starts the server again and waits until the provider wrapper has
// logged, for every pool, a ListInstances (the repair of the pool's first reconcile)
// that ended after the restart.
func (e *benchEnv) restartAndReconcile(ctx context.Context) (reconcileTimes, error) {
	if err := e.startServer(ctx); err != nil {
		return reconcileTimes{}, err
	}
	started, ready := e.server.started, time.Now()
	ctx, cancel := context.WithTimeout(ctx, benchReconcileTimeout)
	defer cancel()
	for {
		calls, err := readProvCalls(e.providerCallLog())
		if err != nil {
			return reconcileTimes{}, err
		}
		last, done := lastRepair(calls, e.pools, started)
		if done {
			return reconcileTimes{fromStart: last.Sub(started), fromReady: last.Sub(ready)}, nil
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return reconcileTimes{}, fmt.Errorf("waiting for every pool's repair after the restart: %w", err)
		}
	}
}

// lastRepair returns when the last pool's first ListInstances after since ended, and
// whether every pool had one.
func lastRepair(calls []provCall, pools []benchPool, since time.Time) (time.Time, bool) {
	first := map[string]time.Time{}
	for _, c := range calls {
		if c.command != "ListInstances" || c.start.Before(since) {
			continue
		}
		if t, ok := first[c.pool]; !ok || c.end.Before(t) {
			first[c.pool] = c.end
		}
	}
	var last time.Time
	for _, p := range pools {
		t, ok := first[p.id]
		if !ok {
			return time.Time{}, false
		}
		if t.After(last) {
			last = t
		}
	}
	return last, true
}

// churn deletes 10% of the instances per minute through the API, in steps every 6 s,
// for d, and returns how many it asked to delete.
func (e *benchEnv) churn(ctx context.Context, d time.Duration) (int, error) {
	end := time.Now().Add(d)
	asked := 0
	for time.Now().Before(end) {
		insts, err := e.api.ListInstances(ctx)
		if err != nil {
			return asked, err
		}
		n := max(1, len(insts)/100) // 1% per 6 s = 10% per minute
		for _, i := range rand.Perm(len(insts))[:min(n, len(insts))] {
			if insts[i].Status != "running" {
				continue
			}
			if err := e.api.DeleteInstance(ctx, insts[i].Name, false, false); err == nil {
				asked++
			}
		}
		if err := sleepCtx(ctx, min(6*time.Second, time.Until(end))); err != nil {
			return asked, err
		}
	}
	return asked, nil
}

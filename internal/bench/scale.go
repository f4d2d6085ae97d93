package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/forgesim"
)

// msOf is d in milliseconds, to 0.1 ms.
func msOf(d time.Duration) float64 { return round1(float64(d.Microseconds()) / 1000) }

// Scale scenario bounds.
const (
	benchFleetTimeout     = 20 * time.Minute // building the fleet
	benchReconcileTimeout = 10 * time.Minute // waiting for every pool's repair after a restart
)

// runScale builds 10,000 idle instances (scaled) across 1,000 pools (scaled),
// restarts the server gracefully to time one full reconcile, then measures it idle for
// half of --duration and under 10% churn per minute for the other half.
func runScale(ctx context.Context, e *env, r *Result) error {
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
	r.FullReconcileMS = ptr(msOf(d.plannedPass))
	r.FullRepairMS = ptr(msOf(d.repairedPass))
	half := e.o.Duration / 2
	fmt.Fprintf(e.out, "after a graceful restart: every pool reconciled in %s, repaired in %s; idle for %s\n",
		d.plannedPass, d.repairedPass, half)
	before, err := e.server.stats()
	if err != nil {
		return err
	}
	e.profileWindow(ctx, half)
	if err := sleepCtx(ctx, half); err != nil {
		return err
	}
	mid, err := e.server.stats()
	if err != nil {
		return err
	}
	r.setProc(before, mid, half)
	if err := e.waitProfile(); err != nil {
		fmt.Fprintln(e.out, err)
	}
	e.profileWindowTo(ctx, half, churnProfile(e.o.CPUProfile))
	fmt.Fprintf(e.out, "churning 10%% of the instances per minute for %s\n", half)
	churned, err := e.churn(ctx, half)
	if err != nil {
		return err
	}
	after, err := e.server.stats()
	if err != nil {
		return err
	}
	var churnR Result
	churnR.setProc(mid, after, half)
	r.PeakRSSMB = churnR.PeakRSSMB
	r.note("idle: %.2f%% of a core over %s; churn (%d instances deleted through the API): %.2f%% of a core, %.2fs CPU over %s",
		*r.CPUPercentOfCore, half, churned, *churnR.CPUPercentOfCore, *churnR.CPUSeconds, half)
	return nil
}

// churnProfile is where scale's churn half is profiled: FILE.churn beside FILE.
func churnProfile(file string) string {
	if file == "" {
		return ""
	}
	return file + ".churn"
}

// runRestart builds scale's fleet, kills the server (SIGKILL) and restarts it, and
// times until every pool was reconciled, then repaired.
func runRestart(ctx context.Context, e *env, r *Result) error {
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
	r.RestartReconciledS = ptr(round2(d.plannedFromStart.Seconds()))
	r.RestartRepairedS = ptr(round2(d.repairedFromStart.Seconds()))
	r.FullReconcileMS = ptr(msOf(d.plannedPass))
	r.FullRepairMS = ptr(msOf(d.repairedPass))
	st, err := e.server.stats()
	if err == nil {
		r.PeakRSSMB = ptr(round1(float64(st.hwmKB) / 1024))
		r.CPUSeconds = ptr(round2(st.cpu.Seconds()))
	}
	return nil
}

// buildFleet creates the pools with min idle runners so that they hold the instances,
// and waits until garrison reports them all running.
func (e *env) buildFleet(ctx context.Context, r *Result) error {
	// 10,000 JIT configs and their listings exceed a PAT's 5,000 calls an hour: the
	// simulator allows what a GitHub App on Enterprise Cloud gets (15,000).
	e.Sim.SetRateLimit(forgesim.RateLimitOptions{Limit: 15000})
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
func (e *env) runningInstances(ctx context.Context) (int, error) {
	insts, err := e.API.ListInstances(ctx)
	n := 0
	for _, in := range insts {
		if in.Status == "running" {
			n++
		}
	}
	return n, err
}

// reconcileTimes is how long after a restart every pool had been reconciled (planned
// against the store) and repaired (checked against its provider and forge), from the
// process's start and from the start of the reconciler's first pass.
type reconcileTimes struct {
	plannedFromStart, plannedPass   time.Duration
	repairedFromStart, repairedPass time.Duration
}

// restartAndReconcile starts the server again and waits until its metrics say that every
// pool was reconciled, then repaired, since the start (the reconciler sets both once).
func (e *env) restartAndReconcile(ctx context.Context) (reconcileTimes, error) {
	if err := e.startServer(ctx); err != nil {
		return reconcileTimes{}, err
	}
	started := e.server.started
	ctx, cancel := context.WithTimeout(ctx, benchReconcileTimeout)
	defer cancel()
	for {
		planned, repaired, err := e.firstPass(ctx)
		if err != nil {
			return reconcileTimes{}, err
		}
		if !planned.at.IsZero() && !repaired.at.IsZero() {
			return reconcileTimes{
				plannedFromStart: planned.at.Sub(started), plannedPass: planned.took,
				repairedFromStart: repaired.at.Sub(started), repairedPass: repaired.took,
			}, nil
		}
		// The gauges carry their own timestamps, so a slow poll loses no precision; a
		// scrape renders every instance's series, which costs the server CPU it measures.
		if err := sleepCtx(ctx, time.Second); err != nil {
			return reconcileTimes{}, fmt.Errorf("waiting for every pool's first reconcile and repair after the restart: %w", err)
		}
	}
}

// passStep is one step of the reconciler's first pass: when it completed and how long
// after the pass began.
type passStep struct {
	at   time.Time
	took time.Duration
}

// firstPassQuery asks /metrics for the first-pass gauges alone: a whole scrape would
// collect a series per runner and per job each second, which the bench would then
// measure as the server's own CPU and memory.
const firstPassQuery = "?name[]=garrison_reconcile_first_pass_seconds&name[]=garrison_reconcile_first_pass_completed_timestamp_seconds"

// firstPass scrapes the server's /metrics for its first pass (zero steps until done).
func (e *env) firstPass(ctx context.Context) (planned, repaired passStep, err error) {
	err = e.scrapeMetrics(ctx, firstPassQuery, func(r io.Reader) error {
		var err error
		planned, repaired, err = firstPassMetrics(r)
		return err
	})
	return planned, repaired, err
}

// scrapeMetrics reads the server's /metrics with query (name[]= selects families) and
// hands the exposition to read.
func (e *env) scrapeMetrics(ctx context.Context, query string, read func(io.Reader) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.server.url+"/metrics"+query, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("scrape /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("scrape /metrics: %s", resp.Status)
	}
	return read(resp.Body)
}

// firstPassMetrics reads the first-pass gauges from a Prometheus text exposition.
func firstPassMetrics(r io.Reader) (planned, repaired passStep, err error) {
	steps := map[string]*passStep{"planned": &planned, "repaired": &repaired}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		v, perr := strconv.ParseFloat(value, 64)
		if perr != nil {
			continue
		}
		for step, p := range steps {
			switch name {
			case `garrison_reconcile_first_pass_seconds{step="` + step + `"}`:
				p.took = time.Duration(v * float64(time.Second))
			case `garrison_reconcile_first_pass_completed_timestamp_seconds{step="` + step + `"}`:
				p.at = time.Unix(0, int64(v*1e9))
			}
		}
	}
	return planned, repaired, sc.Err()
}

// churn deletes 10% of the instances per minute through the API, in steps every 6 s,
// for d, and returns how many it asked to delete.
func (e *env) churn(ctx context.Context, d time.Duration) (int, error) {
	end := time.Now().Add(d)
	asked := 0
	for time.Now().Before(end) {
		insts, err := e.API.ListInstances(ctx)
		if err != nil {
			return asked, err
		}
		n := max(1, len(insts)/100) // 1% per 6 s = 10% per minute
		for _, i := range rand.Perm(len(insts))[:min(n, len(insts))] {
			if insts[i].Status != "running" {
				continue
			}
			if err := e.API.DeleteInstance(ctx, insts[i].Name, false, false); err == nil {
				asked++
			}
		}
		if err := sleepCtx(ctx, min(6*time.Second, time.Until(end))); err != nil {
			return asked, err
		}
	}
	return asked, nil
}

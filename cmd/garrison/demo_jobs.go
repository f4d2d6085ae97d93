package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// demoTick is how often the demo reports progress.
const demoTick = 500 * time.Millisecond

// demoLabels are the runs-on label sets of the burst, used in turn: jobs for either pool
// and jobs that only one of them can run.
var demoLabels = [][]string{
	{"self-hosted", "linux", "small"},
	{"self-hosted", "linux", "large"},
	{"self-hosted", "linux"},
}

// runJobs resets the forge call counts, queues the burst and reports progress until
// every job completed or the timeout passed.
func (d *demo) runJobs(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, d.opts.timeout)
	defer cancel()
	d.sim.ResetCalls()
	for i := range d.opts.jobs {
		labels := demoLabels[i%len(demoLabels)]
		at := time.Now()
		id, err := d.sim.QueueJobFor(demoRepo, d.opts.jobDuration, labels...)
		if err != nil {
			return fmt.Errorf("queueing a job: %w", err)
		}
		d.queued[id] = at
	}
	fmt.Fprintf(d.out, "queued %d jobs (%s each) with labels %s\n", d.opts.jobs, d.opts.jobDuration, labelSets())
	return d.watch(ctx)
}

// watch prints one progress line per tick until the burst is done or ctx ends.
func (d *demo) watch(ctx context.Context) error {
	start := time.Now()
	t := time.NewTicker(demoTick)
	defer t.Stop()
	for {
		jobs := d.jobCounts()
		runners := d.runnerCounts(ctx)
		fmt.Fprintf(d.out, "[%5.1fs] jobs %s | runners %s\n", time.Since(start).Seconds(), jobs, runners)
		if jobs.done == d.opts.jobs {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				jobs = d.jobCounts()
				return fmt.Errorf("%w: after %s only %d of %d jobs completed (%d queued, %d running)",
					errDemoFailed, d.opts.timeout, jobs.done, d.opts.jobs, jobs.queued, jobs.running)
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// jobCounts counts the demo's jobs by state, as the forge sees them.
type jobCounts struct{ queued, running, done int }

func (c jobCounts) String() string {
	return fmt.Sprintf("%2d queued %2d running %2d done", c.queued, c.running, c.done)
}

func (d *demo) jobCounts() jobCounts {
	var c jobCounts
	for _, j := range d.sim.Jobs() {
		if _, ours := d.queued[j.ID]; !ours {
			continue
		}
		switch j.Status {
		case "queued":
			c.queued++
		case "completed":
			c.done++
		default:
			c.running++
		}
	}
	return c
}

// runnerCounts lists the runners garrison reports, by state: the instance status while
// the instance is being created or deleted, else its runner status.
// The listing gets its own time limit so that the last line before a timeout is complete.
func (d *demo) runnerCounts(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	insts, err := d.api.ListInstances(ctx)
	if err != nil {
		return "(unavailable: " + err.Error() + ")"
	}
	if len(insts) == 0 {
		return "none"
	}
	n := map[string]int{}
	for _, in := range insts {
		n[runnerState(in)]++
	}
	states := make([]string, 0, len(n))
	for s := range n {
		states = append(states, s)
	}
	slices.SortFunc(states, func(a, b string) int { return stateRank(a) - stateRank(b) })
	parts := make([]string, 0, len(states))
	for _, s := range states {
		parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
	}
	return strings.Join(parts, ", ")
}

// runnerState is the one word that says where a runner is in its life.
func runnerState(in apiv1.Instance) string {
	if in.Status == "running" && in.RunnerStatus != "" {
		return in.RunnerStatus
	}
	return in.Status
}

// stateOrder is the order states are shown in, from birth to death.
var stateOrder = []string{"pending_create", "creating", "pending", "installing", "idle", "active",
	"terminated", "failed", "pending_delete", "pending_force_delete", "deleting", "error"}

func stateRank(s string) int {
	if i := slices.Index(stateOrder, s); i >= 0 {
		return i
	}
	return len(stateOrder)
}

// labelSets shows the label sets of the burst.
func labelSets() string {
	sets := make([]string, 0, len(demoLabels))
	for _, l := range demoLabels {
		sets = append(sets, "["+strings.Join(l, ",")+"]")
	}
	return strings.Join(sets, " ")
}

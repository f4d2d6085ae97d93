package testbed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// progressTick is how often the demo and ScaleDown look at the progress.
const progressTick = 500 * time.Millisecond

// DemoLabels are the runs-on label sets of the demo's burst, used in turn: jobs for
// either of Setup's pools and jobs that only one of them can run.
var DemoLabels = [][]string{
	{"self-hosted", "linux", "small"},
	{"self-hosted", "linux", "large"},
	{"self-hosted", "linux"},
	{"demo-scaleset"}, // the runner scale set's (DemoScaleSet)
}

// runJobs resets the forge call counts, queues the burst and reports progress until
// every job completed or the timeout passed.
func (d *demo) runJobs(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, d.o.Timeout)
	defer cancel()
	d.Sim.ResetCalls()
	for i := range d.o.Jobs {
		labels := DemoLabels[i%len(DemoLabels)]
		at := time.Now()
		id, err := d.Sim.QueueJobFor(Repo, d.o.JobDuration, labels...)
		if err != nil {
			return fmt.Errorf("queueing a job: %w", err)
		}
		d.Queued[id] = at
	}
	fmt.Fprintf(d.out, "queued %d jobs (%s each) with labels %s\n", d.o.Jobs, d.o.JobDuration, labelSets())
	return d.watch(ctx)
}

// watch prints one progress line per tick until the burst is done or ctx ends.
func (d *demo) watch(ctx context.Context) error {
	start := time.Now()
	t := time.NewTicker(progressTick)
	defer t.Stop()
	for {
		jobs := d.JobCounts()
		runners := d.RunnerCounts(ctx)
		fmt.Fprintf(d.out, "[%5.1fs] jobs %s | runners %s\n", time.Since(start).Seconds(), jobs, runners)
		if jobs.Done == d.o.Jobs {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				jobs = d.JobCounts()
				return fmt.Errorf("%w: after %s only %d of %d jobs completed (%d queued, %d running)",
					ErrFailed, d.o.Timeout, jobs.Done, d.o.Jobs, jobs.Queued, jobs.Running)
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// JobCounts counts jobs by state, as the forge sees them.
type JobCounts struct{ Queued, Running, Done int }

func (c JobCounts) String() string {
	return fmt.Sprintf("%2d queued %2d running %2d done", c.Queued, c.Running, c.Done)
}

// JobCounts counts the jobs in Queued by their state on the forge.
func (b *Bed) JobCounts() JobCounts {
	var c JobCounts
	for _, j := range b.Sim.Jobs() {
		if _, ours := b.Queued[j.ID]; !ours {
			continue
		}
		switch j.Status {
		case "queued":
			c.Queued++
		case "completed":
			c.Done++
		default:
			c.Running++
		}
	}
	return c
}

// RunnerCounts lists the runners garrison reports, by state (RunnerState).
// The listing gets its own time limit so that the last line before a timeout is complete.
func (b *Bed) RunnerCounts(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	insts, err := b.API.ListInstances(ctx)
	if err != nil {
		return "(unavailable: " + err.Error() + ")"
	}
	if len(insts) == 0 {
		return "none"
	}
	n := map[string]int{}
	for _, in := range insts {
		n[RunnerState(in)]++
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

// RunnerState is the one word that says where a runner is in its life: the instance
// status while the instance is being created or deleted, else its runner status.
func RunnerState(in apiv1.Instance) string {
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
	sets := make([]string, 0, len(DemoLabels))
	for _, l := range DemoLabels {
		sets = append(sets, "["+strings.Join(l, ",")+"]")
	}
	return strings.Join(sets, " ")
}

// CompletedJobs counts the jobs among ids the forge saw complete successfully.
func (b *Bed) CompletedJobs(ids []int64) int {
	n := 0
	for _, id := range ids {
		if j, ok := b.Sim.Job(id); ok && j.Status == "completed" && j.Conclusion == "success" {
			n++
		}
	}
	return n
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// demoOptions tune one `garrison demo` run.
type demoOptions struct {
	jobs        int
	jobDuration time.Duration
	bootDelay   time.Duration
	timeout     time.Duration
	jsonFile    string
	keep        bool
	// baseDir is where the demo's temporary directory is made ("" = the system default).
	baseDir string
	// self runs this binary from the provider and runner wrapper scripts.
	self selfCommand
	// simProvider, when set, is a standalone simulation provider executable (a build of
	// ./providers/sim) run instead of this binary's `dev sim-provider`.
	simProvider string
	// scaleDownGrace, when set, is the server's [reconcile] scale_down_grace.
	scaleDownGrace time.Duration
	// reconcile sets more [reconcile] durations of the server (key → value), for tests.
	reconcile map[string]time.Duration
}

// selfCommand is how a shell script runs this garrison binary: env assignments to export,
// then argv followed by a garrison command line.
type selfCommand struct {
	env  []string
	argv []string
}

// errDemoFailed is wrapped by the errors of a demo run that did not meet its goal (jobs
// not completed in time, instances left behind), as opposed to failures to set it up.
var errDemoFailed = errors.New("demo failed")

func newDemoCmd() *cobra.Command {
	o := demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run garrison end to end, offline: forge simulator, simulation provider, a burst of jobs",
		Long: `Run garrison end to end on this machine in under a minute, without network access.

The demo starts a server on a temporary data directory, the GitHub simulator and the
simulation provider (instances are local processes running a stand-in runner through
garrison's real bootstrap scripts), sets up an endpoint, credentials, the repository
acme/app and two pools through the REST API, queues a burst of jobs with mixed labels and
shows progress twice a second. It then scales the pools down and ends with a summary:
jobs run, queue-to-start time percentiles, forge API calls per job and instances leaked.

--json FILE writes the summary with the keys jobs_total, jobs_completed,
instances_leaked (simulated instances without a garrison record, garrison records
without an instance, and forge runners without either), queued_to_started_ms
{p50, p95, p99} (from queueing a job on the forge to its runner reporting it started)
and api_calls_per_job (REST calls to the forge's API from the first queued job until
scale-down finished, divided by jobs_total; the runners' own traffic is not counted),
plus a few more. The demo exits non-zero when the jobs are not all done within
--timeout or anything is left behind, and then keeps its temporary directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if err := checkDemoHost(); err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable: %w", err)
			}
			o.self = selfCommand{argv: []string{exe}}
			_, err = runDemo(cmd.Context(), o, cmd.OutOrStdout())
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.jobs, "jobs", 20, "number of jobs to queue")
	f.DurationVar(&o.jobDuration, "job-duration", time.Second, "how long each job runs")
	f.DurationVar(&o.bootDelay, "boot-delay", 200*time.Millisecond, "how long the simulation provider takes to create an instance")
	f.DurationVar(&o.timeout, "timeout", 90*time.Second, "give up when the jobs have not all completed by then")
	f.StringVar(&o.jsonFile, "json", "", "also write the summary as JSON to this file")
	f.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, database, instance directories)")
	return cmd
}

// validate checks the flag values.
func (o demoOptions) validate() error {
	switch {
	case o.jobs < 1 || o.jobs > 500:
		return fmt.Errorf("--jobs %d: want 1 to 500", o.jobs)
	case o.jobDuration <= 0 || o.bootDelay < 0 || o.timeout <= 0:
		return errors.New("--job-duration and --timeout must be positive, --boot-delay not negative")
	}
	return nil
}

// runDemo runs the whole demo, writes progress and the summary to out, and cleans up.
// A run that did not complete every job or left instances behind returns an error
// wrapping errDemoFailed, together with the summary.
func runDemo(ctx context.Context, o demoOptions, out io.Writer) (demoSummary, error) {
	d, err := newDemo(ctx, o, out)
	if err != nil {
		return demoSummary{}, err
	}
	sum, runErr := d.run(ctx)
	if errors.Is(runErr, context.Canceled) {
		fmt.Fprintln(out, "interrupted: stopping the server and removing every instance")
	}
	keep := o.keep || (runErr != nil && !errors.Is(runErr, context.Canceled))
	if err := d.close(keep); err != nil {
		runErr = errors.Join(runErr, err)
	}
	if keep {
		fmt.Fprintf(out, "kept %s (server.log, data/, sim-state/)\n", d.dir)
	}
	return sum, runErr
}

// run sets garrison up, runs the burst, scales down and reports.
func (d *demo) run(ctx context.Context) (demoSummary, error) {
	start := time.Now()
	if err := d.setup(ctx); err != nil {
		return demoSummary{}, fmt.Errorf("setting up: %w", err)
	}
	err := d.runJobs(ctx)
	if ctx.Err() == nil {
		err = errors.Join(err, d.scaleDown(ctx))
	}
	if ctx.Err() != nil {
		return demoSummary{}, fmt.Errorf("demo interrupted: %w", ctx.Err())
	}
	sum, sumErr := d.summarize(ctx, time.Since(start))
	if sumErr != nil {
		return sum, errors.Join(err, sumErr)
	}
	d.printSummary(sum)
	if err := d.writeJSON(sum); err != nil {
		return sum, err
	}
	if err == nil && (sum.InstancesLeaked > 0 || sum.ProcessesLeaked > 0) {
		err = fmt.Errorf("%w: %d instances and %d processes left behind", errDemoFailed, sum.InstancesLeaked, sum.ProcessesLeaked)
	}
	return sum, err
}

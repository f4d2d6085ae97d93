package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/testbed"
)

func newDemoCmd() *cobra.Command {
	o := testbed.DemoOptions{}
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
			if err := o.Validate(); err != nil {
				return err
			}
			if err := testbed.CheckHost(); err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable: %w", err)
			}
			o.Tools = testbed.Command{Argv: []string{exe}}
			_, err = testbed.RunDemo(cmd.Context(), o, cmd.OutOrStdout())
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Jobs, "jobs", 20, "number of jobs to queue")
	f.DurationVar(&o.JobDuration, "job-duration", time.Second, "how long each job runs")
	f.DurationVar(&o.BootDelay, "boot-delay", 200*time.Millisecond, "how long the simulation provider takes to create an instance")
	f.DurationVar(&o.Timeout, "timeout", 90*time.Second, "give up when the jobs have not all completed by then")
	f.StringVar(&o.JSONFile, "json", "", "also write the summary as JSON to this file")
	f.BoolVar(&o.Keep, "keep", false, "keep the temporary directory (logs, database, instance directories)")
	f.BoolVar(&o.UI, "ui", false, "after the summary, keep everything running and print the web UI's address and login until Ctrl-C")
	f.StringVar(&o.Addr, "addr", "", "the server's listen address, e.g. 127.0.0.1:9997 (default: a free loopback port)")
	return cmd
}

package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// DemoOptions tune one run of the demo (`garrison-dev demo`).
type DemoOptions struct {
	Options
	Jobs     int           // jobs to queue
	Timeout  time.Duration // give up when the jobs have not all completed by then
	JSONFile string        // also write the summary as JSON here ("" = not)
	Keep     bool          // keep the temporary directory
	// UI keeps the server and the simulator running after the summary, with the web UI's
	// address and the administrator's credentials printed, until ctx ends.
	UI bool
	// Addr is the server's listen address ("" = a free loopback port).
	Addr string
	// AfterJobs, when set, runs once every job completed on the forge, before scale-down
	// (tests inspect the server there); its error fails the run.
	AfterJobs func(ctx context.Context, b *Bed) error
}

// ErrFailed is wrapped by the errors of a run that did not meet its goal (jobs not
// completed in time, instances left behind), as opposed to failures to set it up.
var ErrFailed = errors.New("demo failed")

// Validate checks the values of the demo's flags.
func (o DemoOptions) Validate() error {
	switch {
	case o.Jobs < 1 || o.Jobs > 500:
		return fmt.Errorf("--jobs %d: want 1 to 500", o.Jobs)
	case o.JobDuration <= 0 || o.BootDelay < 0 || o.Timeout <= 0:
		return errors.New("--job-duration and --timeout must be positive, --boot-delay not negative")
	}
	return nil
}

// demo is one run of the demo on its bed.
type demo struct {
	*Bed
	o DemoOptions
}

// RunDemo runs the whole demo: a bed with an in-process server, the repository acme/app
// with two pools, a burst of jobs with mixed labels with progress twice a second,
// scale-down and a summary, written to out; it then cleans up. A run that did not
// complete every job or left instances behind returns an error wrapping ErrFailed,
// together with the summary.
func RunDemo(ctx context.Context, o DemoOptions, out io.Writer) (DemoSummary, error) {
	o.Out = out
	b, err := New(o.Options)
	if err != nil {
		return DemoSummary{}, err
	}
	d := &demo{Bed: b, o: o}
	if err := d.start(ctx); err != nil {
		return DemoSummary{}, errors.Join(err, b.Close(false))
	}
	sum, runErr := d.run(ctx)
	if o.UI && ctx.Err() == nil {
		d.serveUI(ctx)
	}
	if errors.Is(runErr, context.Canceled) {
		fmt.Fprintln(out, "interrupted: stopping the server and removing every instance")
	}
	keep := o.Keep || (runErr != nil && !errors.Is(runErr, context.Canceled))
	if err := b.Close(keep); err != nil {
		runErr = errors.Join(runErr, err)
	}
	if keep {
		fmt.Fprintf(out, "kept %s (server.log, data/, sim-state/)\n", b.Dir)
	}
	return sum, runErr
}

// start starts the server in-process and says where everything is.
func (d *demo) start(ctx context.Context) error {
	if err := d.StartServer(ctx, ServerOptions{Addr: d.o.Addr}); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "garrison-dev demo in %s\n  server          %s\n  forge simulator %s\n", d.Dir, d.URL, d.Sim.URL())
	return nil
}

// serveUI says where the web UI is and how to log in, and waits until ctx ends.
func (d *demo) serveUI(ctx context.Context) {
	fmt.Fprintf(d.out, "\nweb UI          %s/ui/\n  username      %s\n  password      %s\n", d.URL, d.AdminUser, d.AdminPassword)
	fmt.Fprintln(d.out, "the demo keeps running; press Ctrl-C to stop it and clean up")
	<-ctx.Done()
	fmt.Fprintln(d.out, "stopping the server and removing every instance")
}

// run sets garrison up, runs the burst, scales down and reports.
func (d *demo) run(ctx context.Context) (DemoSummary, error) {
	start := time.Now()
	if err := d.Setup(ctx); err != nil {
		return DemoSummary{}, fmt.Errorf("setting up: %w", err)
	}
	err := d.runJobs(ctx)
	if err == nil && d.o.AfterJobs != nil {
		err = d.o.AfterJobs(ctx, d.Bed)
	}
	if ctx.Err() == nil {
		err = errors.Join(err, d.ScaleDown(ctx))
	}
	if ctx.Err() != nil {
		return DemoSummary{}, fmt.Errorf("demo interrupted: %w", ctx.Err())
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
		err = fmt.Errorf("%w: %d instances and %d processes left behind", ErrFailed, sum.InstancesLeaked, sum.ProcessesLeaked)
	}
	return sum, err
}

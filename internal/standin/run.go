package standin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrIdle is returned by Run when no matching job came within the idle timeout.
var ErrIdle = errors.New("standin: no matching job")

// Defaults of RunOptions.
const (
	DefaultIdleTimeout = 2 * time.Minute
	DefaultJobDuration = time.Second
	minPoll            = 100 * time.Millisecond
	maxPoll            = 2 * time.Second
)

// RunOptions tune one run.
type RunOptions struct {
	// IdleTimeout bounds the wait for a matching job (0: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// JobDuration is how long a job runs when it does not say (0: DefaultJobDuration).
	JobDuration time.Duration
	// Log receives one line per step (nil: discarded).
	Log io.Writer
	// HTTPClient talks to the simulator (nil: a client with a 30 s timeout).
	HTTPClient *http.Client
}

// withDefaults fills the zero fields.
func (o RunOptions) withDefaults() RunOptions {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.JobDuration <= 0 {
		o.JobDuration = DefaultJobDuration
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTPClient
	}
	return o
}

// Run is one ephemeral runner session: it waits for a job matching the runner, reports
// it started, runs it and completes it with conclusion success. It returns ErrIdle when
// no job came within the idle timeout, and the context error when cancelled (a job in
// progress is then completed as cancelled).
func Run(ctx context.Context, id Identity, opts RunOptions) error {
	opts = opts.withDefaults()
	c := client{http: opts.HTTPClient}
	logf(opts.Log, "runner %s (id %d) listening for jobs on %s", id.Name, id.ID, id.SimURL)
	j, err := waitForJob(ctx, c, id, opts)
	if err != nil {
		return err
	}
	logf(opts.Log, "running job %d (%s) of %s, labels %v", j.ID, j.Name, j.Repo, j.Labels)
	if err := c.start(ctx, id, j.ID); err != nil {
		return fmt.Errorf("starting job %d: %w", j.ID, err)
	}
	if err := work(ctx, jobDuration(j, opts.JobDuration)); err != nil {
		cancelJob(c, id, j.ID, opts.Log)
		return err
	}
	if err := c.complete(ctx, id, j.ID, "success"); err != nil {
		return fmt.Errorf("completing job %d: %w", j.ID, err)
	}
	logf(opts.Log, "job %d completed with conclusion success", j.ID)
	return nil
}

// waitForJob polls acquire with a growing delay until a job comes, the idle timeout
// passes, the credential is refused or ctx ends.
func waitForJob(ctx context.Context, c client, id Identity, opts RunOptions) (*Job, error) {
	deadline := time.Now().Add(opts.IdleTimeout)
	delay := minPoll
	for {
		j, err := c.acquire(ctx, id)
		switch {
		case j != nil:
			return j, nil
		case errors.Is(err, ErrUnauthorized):
			return nil, err
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			logf(opts.Log, "polling for a job: %v", err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w within %s", ErrIdle, opts.IdleTimeout)
		}
		if err := work(ctx, min(delay, left)); err != nil {
			return nil, err
		}
		delay = min(2*delay, maxPoll)
	}
}

// jobDuration is the job's own duration, or def.
func jobDuration(j *Job, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(j.Duration); err == nil && d >= 0 {
		return d
	}
	return def
}

// work waits d or until ctx ends.
func work(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cancelJob completes a job as cancelled after the run was interrupted, best effort.
func cancelJob(c client, id Identity, jobID int64, log io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.complete(ctx, id, jobID, "cancelled"); err != nil {
		logf(log, "could not cancel job %d: %v", jobID, err)
		return
	}
	logf(log, "job %d completed with conclusion cancelled", jobID)
}

// logf writes one timestamped line.
func logf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "%s standin: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

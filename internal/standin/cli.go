package standin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Exit codes of Main.
const (
	ExitOK    = 0
	ExitError = 1 // registration or run failed
	ExitUsage = 2 // bad arguments
	ExitIdle  = 3 // no matching job within the idle timeout
)

// Environment variables read by the run modes when the flag is not given.
const (
	EnvIdleTimeout = "GARRISON_STANDIN_IDLE_TIMEOUT"
	EnvJobDuration = "GARRISON_STANDIN_JOB_DURATION"
)

// Main runs one mode (args[0]: config, run, register or daemon) and returns the exit
// code. Logs go to stdout, errors to stderr; getenv supplies the environment defaults.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: garrison-standin-runner config|run|register|daemon [flags]")
		return ExitUsage
	}
	var err error
	switch args[0] {
	case "config":
		err = configMode(ctx, args[1:], stdout, stderr)
	case "register":
		err = registerMode(ctx, args[1:], stdout, stderr)
	case "run", "daemon":
		err = runMode(ctx, args[0], args[1:], stdout, stderr, getenv)
	default:
		err = fmt.Errorf("%w: unknown mode %q", ErrUsage, args[0])
	}
	return report(err, stderr)
}

// report prints err and maps it to an exit code.
func report(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitUsage
	case errors.Is(err, ErrUsage):
		fmt.Fprintln(stderr, err)
		return ExitUsage
	case errors.Is(err, ErrIdle):
		fmt.Fprintf(stderr, "standin: exiting: %v\n", err)
		return ExitIdle
	}
	fmt.Fprintln(stderr, err)
	return ExitError
}

// newFlags returns a flag set that reports errors as ErrUsage, with --dir.
func newFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs, fs.String("dir", ".", "runner directory")
}

// parse parses args and wraps failures as ErrUsage.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	return nil
}

// configMode is config.sh: register, or "remove".
func configMode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	remove := len(args) > 0 && args[0] == "remove"
	if remove {
		args = args[1:]
	}
	fs, dir := newFlags("config", stderr)
	var r Registration
	var labels string
	var noDefault bool
	fs.StringVar(&r.URL, "url", "", "repository, organization or enterprise URL")
	fs.StringVar(&r.Token, "token", "", "registration token")
	fs.StringVar(&r.Name, "name", "", "runner name")
	fs.StringVar(&labels, "labels", "", "comma-separated labels")
	fs.StringVar(&r.Group, "runnergroup", "", "runner group")
	fs.BoolVar(&r.Ephemeral, "ephemeral", false, "take one job only")
	fs.BoolVar(&noDefault, "no-default-labels", false, "do not add self-hosted, OS and architecture")
	fs.String("work", "_work", "work folder (ignored)")
	for _, b := range []string{"unattended", "replace", "disableupdate"} {
		fs.Bool(b, false, "accepted and ignored")
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if remove {
		return Unconfigure(*dir)
	}
	r.Labels, r.DefaultLabels = splitLabels(labels), !noDefault
	id, err := ConfigureGitHub(ctx, *dir, r)
	if err != nil {
		return err
	}
	logf(stdout, "runner %s registered with id %d", id.Name, id.ID)
	return nil
}

// registerMode is act_runner register.
func registerMode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dir := newFlags("register", stderr)
	var r Registration
	var labels string
	fs.StringVar(&r.URL, "instance", "", "Gitea instance URL")
	fs.StringVar(&r.Token, "token", "", "registration token")
	fs.StringVar(&r.Name, "name", "", "runner name")
	fs.StringVar(&labels, "labels", "", "comma-separated labels")
	fs.BoolVar(&r.Ephemeral, "ephemeral", false, "take one job only")
	fs.Bool("no-interactive", false, "accepted and ignored")
	fs.String("config", "", "accepted and ignored")
	if err := parse(fs, args); err != nil {
		return err
	}
	r.Labels = splitLabels(labels)
	id, err := RegisterGitea(ctx, *dir, r)
	if err != nil {
		return err
	}
	logf(stdout, "runner %s registered with id %d", id.Name, id.ID)
	return nil
}

// runMode is run.sh (GitHub) or act_runner daemon (Gitea).
func runMode(ctx context.Context, mode string, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs, dir := newFlags(mode, stderr)
	var opts RunOptions
	fs.DurationVar(&opts.IdleTimeout, "idle-timeout", envDuration(getenv, EnvIdleTimeout, DefaultIdleTimeout), "wait this long for a job")
	fs.DurationVar(&opts.JobDuration, "job-duration", envDuration(getenv, EnvJobDuration, DefaultJobDuration), "job length when the job does not say")
	fs.Bool("once", true, "accepted; the stand-in always takes one job")
	fs.String("config", "", "accepted and ignored")
	fs.String("startuptype", "", "accepted and ignored")
	if err := parse(fs, args); err != nil {
		return err
	}
	load := LoadGitHub
	if mode == "daemon" {
		load = LoadGitea
	}
	id, err := load(*dir)
	if err != nil {
		return err
	}
	opts.Log = stdout
	return Run(ctx, id, opts)
}

// envDuration reads a duration from the environment, def when unset or invalid.
func envDuration(getenv func(string) string, name string, def time.Duration) time.Duration {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d, err := time.ParseDuration(getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// splitLabels splits a comma-separated list, dropping empty items.
func splitLabels(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, ",") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

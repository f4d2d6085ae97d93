package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// benchOptions tune one `garrison bench` run.
type benchOptions struct {
	scenario  string
	duration  time.Duration // 0: the scenario's default
	scale     float64
	bootDelay time.Duration
	jsonFile  string
	svgFile   string
	keep      bool
	// cpuProfile receives a CPU profile of the server over the measured window.
	cpuProfile string
	// baseDir is where the temporary directory is made ("" = the system default).
	baseDir string
	// self runs this binary: the server child process and the provider wrapper.
	self selfCommand
	// simProvider is the standalone simulation provider executable ("" = self's
	// `dev sim-provider`).
	simProvider string
}

// benchScenario is one named load: run drives an environment and fills the result.
type benchScenario struct {
	name     string
	summary  string
	duration time.Duration // default --duration
	run      func(ctx context.Context, e *benchEnv, r *benchResult) error
}

// benchScenarios lists every scenario of issue 7, in priority order.
func benchScenarios() []benchScenario {
	return []benchScenario{
		{"intake", "signed webhook deliveries only, as fast as the server accepts them", 30 * time.Second, runBenchIntake},
		{"burst", "1,000 jobs queued within --duration (10 s) across 50 pools (max 40 runners each)", 10 * time.Second, runBenchBurst},
		{"steady", "300 jobs per minute across 50 pools, mixed labels", 5 * time.Minute, runBenchSteady},
		{"idle", "100 repositories with pools and no jobs; forge calls extrapolated per hour", 10 * time.Minute, runBenchIdle},
		{"backlog", "5,000 queued jobs that no pool has capacity for", 10 * time.Minute, runBenchBacklog},
		{"scale", "10,000 live idle instances across 1,000 pools, then 10% churn per minute", 3 * time.Minute, runBenchScale},
		{"restart", "scale's instances, server killed (SIGKILL) and restarted", time.Minute, runBenchRestart},
	}
}

func newBenchCmd() *cobra.Command {
	o := benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench --scenario NAME",
		Short: "Measure garrison under a named load, offline (forge simulator, simulation provider)",
		Long: `Measure garrison under a named load on this machine, offline.

bench starts the forge simulator in this process, the server as a child process on a
temporary data directory (so that its CPU time and peak RSS can be read from /proc), and
the simulation provider behind a wrapper that logs every provider call with timestamps.
It runs the scenario, prints a table and, with --json, writes the figures; --svg draws
queue time over the run. --scale multiplies every count of the scenario (jobs, pools,
repositories, instances) so that it can run small. See docs/performance.md for every
figure's definition.

Scenarios: ` + benchScenarioNames(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable: %w", err)
			}
			o.self = selfCommand{argv: []string{exe}}
			if o.simProvider, err = findSimProvider(o.simProvider, exe); err != nil {
				return err
			}
			if o.simProvider == "" {
				cleanup := o.useBuiltSimProvider(cmd.Context(), cmd.OutOrStdout())
				defer cleanup()
			}
			_, err = runBench(cmd.Context(), o, cmd.OutOrStdout())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "scenario to run: "+benchScenarioNames())
	f.DurationVar(&o.duration, "duration", 0, "how long the scenario's load or observation lasts (default: the scenario's)")
	f.Float64Var(&o.scale, "scale", 1, "multiply the scenario's counts by this factor (0 < F <= 1), e.g. 0.1")
	f.DurationVar(&o.bootDelay, "boot-delay", 0, "how long the simulation provider's CreateInstance takes")
	f.StringVar(&o.jsonFile, "json", "", "write the figures as JSON to this file")
	f.StringVar(&o.svgFile, "svg", "", "write an SVG chart of queue time over the run to this file")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile (pprof) of the server over the measured window to this file")
	f.StringVar(&o.simProvider, "sim-provider", "", "standalone simulation provider executable (go build -o DIR/garrison-provider-sim ./providers/sim; default: that name beside this binary if present, else this binary)")
	f.BoolVar(&o.keep, "keep", false, "keep the temporary directory (server.log, provider-calls.log, data/)")
	return cmd
}

// useBuiltSimProvider sets o.simProvider to a fresh build of the standalone simulation
// provider when the working directory is garrison's source, and says so; else it says
// that garrison itself will be the provider. It returns the build's cleanup.
func (o *benchOptions) useBuiltSimProvider(ctx context.Context, out io.Writer) func() {
	wd, err := os.Getwd()
	if err == nil {
		var path string
		var cleanup func()
		if path, cleanup, err = buildSimProvider(ctx, wd); err == nil {
			fmt.Fprintf(out, "built the standalone simulation provider (%s not beside this binary)\n", simProviderName)
			o.simProvider = path
			return cleanup
		}
	}
	fmt.Fprintf(out, "note: garrison itself is the simulation provider (%v); every provider call pays its start-up\n", err)
	return func() {}
}

// benchScenarioNames lists the scenario names.
func benchScenarioNames() string {
	var names []string
	for _, s := range benchScenarios() {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// lookupScenario returns the named scenario.
func lookupScenario(name string) (benchScenario, bool) {
	i := slices.IndexFunc(benchScenarios(), func(s benchScenario) bool { return s.name == name })
	if i < 0 {
		return benchScenario{}, false
	}
	return benchScenarios()[i], true
}

// validate checks the flag values.
func (o benchOptions) validate() error {
	if _, ok := lookupScenario(o.scenario); !ok {
		return fmt.Errorf("--scenario %q: want one of %s", o.scenario, benchScenarioNames())
	}
	switch {
	case o.scale <= 0 || o.scale > 1:
		return fmt.Errorf("--scale %v: want 0 < F <= 1", o.scale)
	case o.duration < 0 || o.duration > 2*time.Hour:
		return fmt.Errorf("--duration %s: want 0 to 2h", o.duration)
	case o.bootDelay < 0 || o.bootDelay > time.Minute:
		return fmt.Errorf("--boot-delay %s: want 0 to 1m", o.bootDelay)
	}
	return nil
}

// scaled returns n times the scale factor, at least min.
func (o benchOptions) scaled(n, min int) int {
	return max(min, int(float64(n)*o.scale+0.5))
}

// runBench runs one scenario, prints the table and writes the files.
func runBench(ctx context.Context, o benchOptions, out io.Writer) (benchResult, error) {
	sc, _ := lookupScenario(o.scenario)
	if o.duration == 0 {
		o.duration = sc.duration
	}
	if err := checkDemoHost(); err != nil {
		return benchResult{}, err
	}
	e, err := newBenchEnv(ctx, o, out)
	if err != nil {
		return benchResult{}, err
	}
	r := newBenchResult(o)
	r.Notes = append(r.Notes, simProviderNote(o.simProvider))
	start := time.Now()
	runErr := sc.run(ctx, e, &r)
	if err := e.waitProfile(); err != nil {
		fmt.Fprintln(out, err)
	}
	r.WallSeconds = round1(time.Since(start).Seconds())
	if closeErr := e.close(o.keep || runErr != nil); closeErr != nil {
		fmt.Fprintln(out, "cleaning up:", closeErr)
	}
	if runErr != nil {
		return r, fmt.Errorf("bench %s: %w", o.scenario, runErr)
	}
	r.print(out)
	return r, r.writeFiles(o)
}

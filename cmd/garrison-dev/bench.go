package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/bench"
)

func newBenchCmd() *cobra.Command {
	o := bench.Options{}
	var garrison, simProvider, postgresDSN string
	cmd := &cobra.Command{
		Use:   "bench --scenario NAME",
		Short: "Measure garrison under a named load, offline (forge simulator, simulation provider)",
		Long: `Measure garrison under a named load on this machine, offline.

bench starts the forge simulator in this process, the garrison server as a child process
on a temporary data directory (so that its CPU time and peak RSS can be read from /proc),
and the simulation provider behind a wrapper that logs every provider call with
timestamps. It runs the scenario, prints a table and, with --json, writes the figures;
--svg draws queue time over the run. --scale multiplies every count of the scenario
(jobs, pools, repositories, instances) so that it can run small. See docs/performance.md
for every figure's definition.

The server is the production binary: --garrison, else garrison beside garrison-dev, else
a fresh build of ./cmd/garrison when run from garrison's source (go run ./cmd/garrison-dev
bench). The simulation provider: --sim-provider, else garrison-provider-sim beside
garrison-dev, else a fresh build of ./providers/sim, else garrison-dev itself.

Scenarios: ` + bench.ScenarioNames(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if postgresDSN != "" {
				o.NewDatabase = bench.ScratchPostgres(postgresDSN)
			}
			if err := o.Validate(); err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable: %w", err)
			}
			x := bench.Executables{Self: exe, Garrison: garrison, SimProvider: simProvider}
			cleanup, err := x.Use(cmd.Context(), &o, cmd.OutOrStdout())
			defer cleanup()
			if err != nil {
				return err
			}
			_, err = bench.Run(cmd.Context(), o, cmd.OutOrStdout())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Scenario, "scenario", "", "scenario to run: "+bench.ScenarioNames())
	f.DurationVar(&o.Duration, "duration", 0, "how long the scenario's load or observation lasts (default: the scenario's)")
	f.Float64Var(&o.Scale, "scale", 1, "multiply the scenario's counts by this factor (0 < F <= 1), e.g. 0.1")
	f.DurationVar(&o.BootDelay, "boot-delay", 0, "how long the simulation provider's CreateInstance takes")
	f.StringVar(&o.JSONFile, "json", "", "write the figures as JSON to this file")
	f.StringVar(&o.SVGFile, "svg", "", "write an SVG chart of queue time over the run to this file")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) of the server over the measured window to this file")
	f.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile (pprof) of the server, taken as the scenario ends, to this file")
	f.StringVar(&garrison, "garrison", "", "the garrison binary to run as the server (default: garrison beside this binary, else a build of ./cmd/garrison)")
	f.StringVar(&simProvider, "sim-provider", "", "standalone simulation provider executable (go build -o DIR/garrison-provider-sim ./providers/sim; default: that name beside this binary, else a build, else this binary)")
	f.StringVar(&postgresDSN, "postgres", os.Getenv("GARRISON_TEST_POSTGRES_DSN"), "PostgreSQL server (postgres:// URL of a role that may create databases) for the replicas scenario's database, made and dropped by the run (default $GARRISON_TEST_POSTGRES_DSN)")
	f.IntVar(&o.Replicas, "replicas", 0, "the replicas scenario's number of servers (default 3; 1 measures the same load on one server on PostgreSQL)")
	f.BoolVar(&o.Keep, "keep", false, "keep the temporary directory (server.log, provider-calls.log, data/)")
	return cmd
}

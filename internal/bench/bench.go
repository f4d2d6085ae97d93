package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// Options tune one bench run.
type Options struct {
	Scenario  string
	Duration  time.Duration // 0: the scenario's default
	Scale     float64
	BootDelay time.Duration
	JSONFile  string
	SVGFile   string
	Keep      bool
	// CPUProfile receives a CPU profile of the server over the measured window.
	CPUProfile string
	// MemProfile receives a heap profile of the server as the scenario ends.
	MemProfile string
	// BaseDir is where the temporary directory is made ("" = the system default).
	BaseDir string
	// Server runs the garrison binary: the bench appends `server` and its flags.
	Server testbed.Command
	// Tools runs the testbed's tools (testbed.RunTool): the simulation provider when
	// SimProvider is "".
	Tools testbed.Command
	// SimProvider is the standalone simulation provider executable ("" = Tools').
	SimProvider string
	// NewDatabase makes a new PostgreSQL database and returns its DSN and a function that
	// drops it: the replicas scenario runs on it (garrison-dev bench --postgres).
	NewDatabase func(context.Context) (dsn string, drop func(context.Context) error, err error)
	// Replicas is the replicas scenario's number of servers (0 = 3).
	Replicas int
}

// scenario is one named load: run drives an environment and fills the result.
type scenario struct {
	name     string
	summary  string
	duration time.Duration // default --duration
	run      func(ctx context.Context, e *env, r *Result) error
}

// scenarios lists every scenario of issue 7, in priority order.
func scenarios() []scenario {
	return []scenario{
		{"intake", "signed webhook deliveries only, as fast as the server accepts them", 30 * time.Second, runIntake},
		{"burst", "1,000 jobs queued within --duration (10 s) across 50 pools (max 40 runners each)", 10 * time.Second, runBurst},
		{"steady", "300 jobs per minute across 50 pools, mixed labels", 5 * time.Minute, runSteady},
		{"idle", "100 repositories with pools and no jobs; forge calls extrapolated per hour", 10 * time.Minute, runIdle},
		{"backlog", "5,000 queued jobs that no pool has capacity for", 10 * time.Minute, runBacklog},
		{"scale", "10,000 live idle instances across 1,000 pools, then 10% churn per minute", 3 * time.Minute, runScale},
		{"restart", "scale's instances, server killed (SIGKILL) and restarted", time.Minute, runRestart},
		{"scaleset-burst", "1,000 jobs queued within --duration (10 s) across 20 runner scale sets (max 50 runners each)", 10 * time.Second, runScaleSetBurst},
		{replicasScenario, "three replicas on one PostgreSQL database (--postgres): 300 jobs within --duration (10 s) across 20 pools, then one replica killed (SIGKILL) and its pools' takeover timed", 10 * time.Second, runReplicas},
	}
}

// ScenarioNames lists the scenario names.
func ScenarioNames() string {
	var names []string
	for _, s := range scenarios() {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// lookupScenario returns the named scenario.
func lookupScenario(name string) (scenario, bool) {
	i := slices.IndexFunc(scenarios(), func(s scenario) bool { return s.name == name })
	if i < 0 {
		return scenario{}, false
	}
	return scenarios()[i], true
}

// Validate checks the values of the bench's flags.
func (o Options) Validate() error {
	if _, ok := lookupScenario(o.Scenario); !ok {
		return fmt.Errorf("--scenario %q: want one of %s", o.Scenario, ScenarioNames())
	}
	switch {
	case o.Scale <= 0 || o.Scale > 1:
		return fmt.Errorf("--scale %v: want 0 < F <= 1", o.Scale)
	case o.Duration < 0 || o.Duration > 2*time.Hour:
		return fmt.Errorf("--duration %s: want 0 to 2h", o.Duration)
	case o.BootDelay < 0 || o.BootDelay > time.Minute:
		return fmt.Errorf("--boot-delay %s: want 0 to 1m", o.BootDelay)
	case o.Replicas < 0 || o.Replicas > 9:
		return fmt.Errorf("--replicas %d: want 1 to 9", o.Replicas)
	case o.Scenario == replicasScenario && o.NewDatabase == nil:
		return fmt.Errorf("--scenario %s needs --postgres (a postgres:// URL of a role that may create databases)", replicasScenario)
	}
	return nil
}

// scaled returns n times the scale factor, at least min.
func (o Options) scaled(n, min int) int {
	return max(min, int(float64(n)*o.Scale+0.5))
}

// Run runs one scenario, prints the table to out and writes the files.
func Run(ctx context.Context, o Options, out io.Writer) (Result, error) {
	sc, _ := lookupScenario(o.Scenario)
	if o.Duration == 0 {
		o.Duration = sc.duration
	}
	if err := testbed.CheckHost(); err != nil {
		return Result{}, err
	}
	e, err := newEnv(ctx, o, out)
	if err != nil {
		return Result{}, err
	}
	r := newResult(o)
	r.Notes = append(r.Notes, simProviderNote(o.SimProvider))
	start := time.Now()
	runErr := sc.run(ctx, e, &r)
	if runErr == nil {
		if err := e.heapProfile(ctx); err != nil {
			fmt.Fprintln(out, err)
		}
	}
	if err := e.waitProfile(); err != nil {
		fmt.Fprintln(out, err)
	}
	r.WallSeconds = round1(time.Since(start).Seconds())
	if closeErr := e.close(o.Keep || runErr != nil); closeErr != nil {
		fmt.Fprintln(out, "cleaning up:", closeErr)
	}
	if runErr != nil {
		return r, fmt.Errorf("bench %s: %w", o.Scenario, runErr)
	}
	r.print(out)
	return r, r.writeFiles(o)
}

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// env is one bench run: a testbed (its directory, simulator and API client), the
// server as a child process and the provider wrapper that logs every call.
type env struct {
	*testbed.Bed
	o      Options
	out    io.Writer
	server *benchServer
	addr   string // the server's loopback address
	// replicas, in the replicas scenario, are the servers instead of server.
	replicas *replicaSet
	// webhookURL is the controller's webhook URL (set by setupRepos).
	webhookURL string
	// secrets holds each repository's webhook secret.
	secrets map[string]string
	// pools are the pools created, in order.
	pools []benchPool
	// profiling is the CPU profile in progress (see profileWindow).
	profiling chan error
}

// benchPool is one pool the bench created: its jobs carry label.
type benchPool struct {
	id, repo, label string
}

// labels are the runs-on labels of the pool's jobs.
func (p benchPool) labels() []string { return []string{"self-hosted", "linux", p.label} }

// newEnv makes the temporary directory and its files, and starts the simulator and
// the server.
func newEnv(ctx context.Context, o Options, out io.Writer) (*env, error) {
	bed, err := testbed.New(testbed.Options{BaseDir: o.BaseDir, DirPrefix: "garrison-bench-", Tools: o.Tools,
		SimProvider: o.SimProvider, BootDelay: o.BootDelay, JobDuration: time.Second, Out: out})
	if err != nil {
		return nil, err
	}
	e := &env{Bed: bed, o: o, out: out, secrets: map[string]string{}}
	if err := e.start(ctx); err != nil {
		return nil, errors.Join(err, e.close(false))
	}
	return e, nil
}

// start writes the bench's sim config and provider wrapper over the testbed's, and
// starts the server.
func (e *env) start(ctx context.Context) error {
	wrapper := e.Path("bin", "garrison-provider-bench")
	if err := testbed.WriteScript(wrapper, e.providerWrapper()); err != nil {
		return err
	}
	if err := os.WriteFile(e.SimConfigPath(), []byte(e.benchSimConfig()), 0o600); err != nil {
		return err
	}
	// The bench server serves pprof (--cpuprofile reads it, and so may whoever keeps the
	// run) and its metrics without a token (the bench reads them; it listens on loopback).
	cfg := "[default]\ndebug_server = true\n\n[metrics]\ndisable_auth = true\n\n" + e.ServerConfig(wrapper)
	if err := os.WriteFile(e.ConfigFile(), []byte(cfg), 0o600); err != nil {
		return err
	}
	if e.o.Scenario == replicasScenario {
		return e.startReplicas(ctx, wrapper)
	}
	if err := e.startServer(ctx); err != nil {
		return err
	}
	fmt.Fprintf(e.out, "garrison-dev bench %s (scale %v) in %s\n  server %s (pid %d)  forge simulator %s\n",
		e.o.Scenario, e.o.Scale, e.Dir, e.server.url, e.server.cmd.Process.Pid, e.Sim.URL())
	return nil
}

// startServer starts (or restarts) the server child process on the data directory.
func (e *env) startServer(ctx context.Context) error {
	if e.addr == "" {
		addr, err := freeLoopbackAddr()
		if err != nil {
			return err
		}
		e.addr = addr // kept across restarts: the forge's webhooks point at it
	}
	s, err := startBenchServer(ctx, e.o.Server, e.addr, e.Path("data"), e.ConfigFile(), e.Path("server.log"))
	if err != nil {
		return err
	}
	e.server = s
	e.URL = s.url // what the testbed's setup helpers read
	return nil
}

// providerCallLog is the provider wrapper's log: one line per call.
func (e *env) providerCallLog() string { return e.Path("provider-calls.log") }

// providerWrapper runs the simulation provider and logs, per call, its start and end
// (Unix nanoseconds), exit code, command and pool id. It is bash for $EPOCHREALTIME: two
// `date` processes per call would cost as much as a standalone provider's whole run.
func (e *env) providerWrapper() string {
	target := e.ProviderScript()
	if e.o.SimProvider != "" {
		target = e.o.SimProvider // run directly: no inner script
	}
	return fmt.Sprintf(`#!/bin/bash
# written by garrison-dev bench: times every provider call
t0=${EPOCHREALTIME//[.,]/}
%s "$@"
rc=$?
t1=${EPOCHREALTIME//[.,]/}
echo "${t0}000 ${t1}000 $rc ${GARM_COMMAND:-none} ${GARM_POOL_ID:--}" >> %s
exit $rc
`, testbed.ShellQuote(target), testbed.ShellQuote(e.providerCallLog()))
}

// benchSimConfig keeps instances as records only: no process boots; the bench's runners
// play the runners on the forge side (see benchRunners).
func (e *env) benchSimConfig() string {
	return fmt.Sprintf("state_dir = %q\nboot = \"record\"\nboot_delay = %q\n", e.Path("sim-state"), e.o.BootDelay.String())
}

// close stops the server and lets the testbed remove instances, the simulator and the
// directory.
func (e *env) close(keep bool) error {
	var errs []error
	if e.server != nil {
		errs = append(errs, e.server.stop())
	}
	if e.replicas != nil {
		errs = append(errs, e.replicas.close())
	}
	errs = append(errs, e.Bed.Close(keep))
	if keep {
		fmt.Fprintf(e.out, "kept %s (server.log, provider-calls.log, data/, sim-state/)\n", e.Dir)
	}
	return errors.Join(errs...)
}

// setupRepos logs in, points the controller at the server, and adds the simulator
// endpoint, the credentials and n repositories (acme/app, acme/app-1, ...), each with
// its webhook on the forge unless noHook.
func (e *env) setupRepos(ctx context.Context, n int, noHook bool) ([]apiv1.Repository, error) {
	if err := e.Login(ctx); err != nil {
		return nil, err
	}
	hookURL, err := e.SetControllerURLs(ctx)
	if err != nil {
		return nil, err
	}
	e.webhookURL = hookURL
	first, secret, err := e.AddRepository(ctx)
	if err != nil {
		return nil, err
	}
	e.secrets[testbed.Repo] = secret
	repos := []apiv1.Repository{first}
	for i := 1; i < n; i++ {
		r, err := e.addBenchRepo(ctx, fmt.Sprintf("%s-%d", testbed.Repo, i))
		if err != nil {
			return nil, err
		}
		repos = append(repos, r)
	}
	if noHook {
		return repos, nil
	}
	for _, r := range repos {
		name := r.Owner + "/" + r.Name
		if _, err := e.Sim.AddHook("repos/"+name, hookURL, e.secrets[name], garrison.GitHub); err != nil {
			return nil, fmt.Errorf("adding the webhook of %s: %w", name, err)
		}
	}
	return repos, nil
}

// addBenchRepo adds one more repository on the forge and in garrison.
func (e *env) addBenchRepo(ctx context.Context, full string) (apiv1.Repository, error) {
	if err := e.Sim.AddRepo(full); err != nil {
		return apiv1.Repository{}, err
	}
	owner, name, _ := strings.Cut(full, "/")
	secret := testbed.RandomToken(24)
	r, err := e.API.CreateRepository(ctx, apiv1.CreateRepoParams{Owner: owner, Name: name,
		CredentialsName: testbed.Credentials, WebhookSecret: secret})
	if err != nil {
		return r, fmt.Errorf("adding %s: %w", full, err)
	}
	e.secrets[full] = secret
	return r, nil
}

// benchPoolSpec says how many pools to make per repository and how.
type benchPoolSpec struct {
	perRepo      int
	max, minIdle uint
}

// createPools creates spec.perRepo pools on each repository, each with its own label
// (p0000, p0001, ...), with up to 8 API calls at once.
func (e *env) createPools(ctx context.Context, repos []apiv1.Repository, spec benchPoolSpec) error {
	type req struct {
		i    int
		repo apiv1.Repository
	}
	var reqs []req
	for _, r := range repos {
		for range spec.perRepo {
			reqs = append(reqs, req{len(reqs), r})
		}
	}
	pools := make([]benchPool, len(reqs))
	err := forEachLimit(ctx, len(reqs), 8, func(ctx context.Context, k int) error {
		rq := reqs[k]
		label := fmt.Sprintf("p%04d", rq.i)
		p, err := e.API.CreatePool(ctx, apiclient.Repositories, rq.repo.ID, apiv1.CreatePoolParams{
			ProviderName: testbed.ProviderName, MaxRunners: spec.max, MinIdleRunners: spec.minIdle,
			Image: "bench", Flavor: "bench", OSType: "linux", OSArch: "amd64",
			Tags: []string{"self-hosted", "linux", label}, Enabled: true,
		})
		if err != nil {
			return fmt.Errorf("creating pool %s: %w", label, err)
		}
		pools[rq.i] = benchPool{id: p.ID, repo: rq.repo.Owner + "/" + rq.repo.Name, label: label}
		return nil
	})
	e.pools = append(e.pools, pools...)
	return err
}

// forEachLimit calls fn for 0..n-1 with at most limit calls at once and returns the
// first error; it stops starting calls once one failed or ctx ended.
func forEachLimit(ctx context.Context, n, limit int, fn func(context.Context, int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// instanceFile is where the simulation provider keeps an instance's record.
func (e *env) instanceFile(name string) string {
	return filepath.Join(e.Path("sim-state"), "instances", "sim-"+name+".json")
}

// stats reads the server's /proc figures, or the sum of the replicas'.
func (e *env) stats() (procStats, error) {
	if e.replicas != nil {
		return e.replicas.stats()
	}
	return e.server.stats()
}

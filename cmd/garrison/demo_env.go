package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/standin"
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

// The demo's fixed names.
const (
	demoRepo         = "acme/app"
	demoEndpoint     = "sim"
	demoCredentials  = "sim-pat"
	demoProviderName = "sim"
	// demoIdleTimeout is how long an idle stand-in runner waits for a job; scale-down
	// deletes idle runners long before.
	demoIdleTimeout = 10 * time.Minute
	// demoCleanupTimeout bounds the final teardown.
	demoCleanupTimeout = 30 * time.Second
)

// demo is one run of `garrison demo`: its temporary directory, the forge simulator, the
// server and the client that drives it.
type demo struct {
	opts demoOptions
	out  io.Writer
	dir  string

	sim    *forgesim.Sim
	simSrv *http.Server
	starts *startRecorder
	pat    string

	srv     *demoServer
	api     *apiclient.Client
	ctrlID  string
	poolIDs []string
	queued  map[int64]time.Time // job id → when the demo queued it
}

// paths of the files in the demo directory.
func (d *demo) path(elem ...string) string { return filepath.Join(append([]string{d.dir}, elem...)...) }

// newDemo makes the temporary directory, writes the wrapper scripts, the runner cache and
// the configs, and starts the forge simulator and the server.
func newDemo(ctx context.Context, o demoOptions, out io.Writer) (*demo, error) {
	dir, err := os.MkdirTemp(o.baseDir, "garrison-demo-")
	if err != nil {
		return nil, fmt.Errorf("making the demo directory: %w", err)
	}
	d := &demo{opts: o, out: out, dir: dir, pat: "ghp_demo" + randomToken(12), queued: map[int64]time.Time{}}
	if err := d.start(ctx); err != nil {
		return nil, errors.Join(err, d.close(false))
	}
	return d, nil
}

// start prepares the files and starts the simulator and the server.
func (d *demo) start(ctx context.Context) error {
	cfg, err := d.writeFiles()
	if err != nil {
		return err
	}
	if err := d.startSim(); err != nil {
		return err
	}
	logFile, err := os.OpenFile(d.path("server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	d.srv, err = startDemoServer(ctx, d.path("data"), cfg, logFile)
	if err != nil {
		logFile.Close()
		return fmt.Errorf("starting the server: %w", err)
	}
	fmt.Fprintf(d.out, "garrison demo in %s\n  server          %s\n  forge simulator %s\n", d.dir, d.srv.url, d.sim.URL())
	return nil
}

// writeFiles writes the wrapper scripts, the unpacked runner and the configs, and returns
// the server config file.
func (d *demo) writeFiles() (string, error) {
	bin := d.path("bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return "", err
	}
	provider := filepath.Join(bin, "garrison-provider-sim")
	if err := writeScript(provider, d.opts.simProviderScript()); err != nil {
		return "", err
	}
	runner := filepath.Join(bin, "garrison-standin-runner")
	if err := writeScript(runner, d.opts.self.script("dev", "standin-runner")); err != nil {
		return "", err
	}
	if err := d.writeRunnerCache(runner); err != nil {
		return "", err
	}
	if err := os.WriteFile(d.simConfigPath(), []byte(d.simConfig()), 0o600); err != nil {
		return "", err
	}
	cfg := d.path("config.toml")
	return cfg, os.WriteFile(cfg, []byte(d.serverConfig(provider)), 0o600)
}

// writeRunnerCache builds the stand-in runner archive around the runner wrapper, serves it
// from the simulator like GitHub's downloads, and unpacks it as the provider's runner
// cache so no instance needs to download it.
func (d *demo) writeRunnerCache(runner string) error {
	tarball, err := standin.Tarball(runner)
	if err != nil {
		return err
	}
	if err := os.WriteFile(d.path("runner.tar.gz"), tarball, 0o600); err != nil {
		return err
	}
	return untarGz(tarball, d.path("runner-cache"))
}

func (d *demo) simConfigPath() string { return d.path("sim.toml") }

// simConfig is the simulation provider's config: script boot with the runner cache.
func (d *demo) simConfig() string {
	return fmt.Sprintf(`state_dir = %q
boot = "script"
boot_delay = %q
runner_cache = %q

[boot_env]
%s = %q
%s = %q
`, d.path("sim-state"), d.opts.bootDelay.String(), d.path("runner-cache"),
		standin.EnvIdleTimeout, demoIdleTimeout.String(), standin.EnvJobDuration, d.opts.jobDuration.String())
}

// serverConfig registers the simulation provider.
func (d *demo) serverConfig(provider string) string {
	keys := map[string]time.Duration{}
	maps.Copy(keys, d.opts.reconcile)
	if d.opts.scaleDownGrace > 0 {
		keys["scale_down_grace"] = d.opts.scaleDownGrace
	}
	reconcile := ""
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		reconcile += fmt.Sprintf("%s = %q\n", k, keys[k].String())
	}
	if reconcile != "" {
		reconcile = "[reconcile]\n" + reconcile + "\n"
	}
	return reconcile + fmt.Sprintf(`[[provider]]
name = %q
provider_type = "external"
description = "simulation provider: instances are local processes"
  [provider.external]
  provider_executable = %q
  config_file = %q
  interface_version = "v0.1.1"
`, demoProviderName, provider, d.simConfigPath())
}

// startSim serves the forge simulator on loopback through the start recorder.
func (d *demo) startSim() error {
	d.sim = forgesim.New(forgesim.Options{})
	d.starts = newStartRecorder(d.sim)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	d.simSrv = &http.Server{Handler: d.starts, ReadHeaderTimeout: 10 * time.Second}
	d.sim.SetURL("http://" + ln.Addr().String())
	go func() { _ = d.simSrv.Serve(ln) }()
	tarball, err := os.ReadFile(d.path("runner.tar.gz"))
	if err != nil {
		return err
	}
	d.sim.SetRunnerTarball(tarball)
	d.sim.AddToken(d.pat)
	d.sim.AddOrg("acme")
	return d.sim.AddRepo(demoRepo)
}

// close stops the server, removes whatever instances the provider still has (killing
// their processes), stops the simulator and, unless keep, removes the directory.
func (d *demo) close(keep bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), demoCleanupTimeout)
	defer cancel()
	var errs []error
	if d.srv != nil {
		errs = append(errs, d.srv.stop())
	}
	if d.ctrlID != "" {
		errs = append(errs, d.removeAllInstances(ctx))
	}
	if d.simSrv != nil {
		errs = append(errs, d.simSrv.Shutdown(ctx), d.sim.Close())
	}
	if !keep {
		errs = append(errs, os.RemoveAll(d.dir))
	}
	return errors.Join(errs...)
}

// simProvider opens the simulation provider's state in-process, as the controller sees it.
func (d *demo) simProvider() (*simprovider.Provider, error) {
	cfg, err := simprovider.LoadConfig(d.simConfigPath())
	if err != nil {
		return nil, err
	}
	return simprovider.NewWithConfig(cfg, sdk.Environment{ControllerID: d.ctrlID, ConfigFile: d.simConfigPath()})
}

// removeAllInstances is the provider's RemoveAllInstances for this controller.
func (d *demo) removeAllInstances(ctx context.Context) error {
	p, err := d.simProvider()
	if err != nil {
		return err
	}
	if err := p.RemoveAllInstances(ctx); err != nil {
		return fmt.Errorf("removing the simulated instances: %w", err)
	}
	return nil
}

// script is a /bin/sh script that runs this binary with args and the script's arguments.
func (s selfCommand) script(args ...string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# written by garrison demo\n")
	for _, e := range s.env {
		b.WriteString("export " + shellQuote(e) + "\n")
	}
	b.WriteString("exec")
	for _, a := range append(append([]string(nil), s.argv...), args...) {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString(" \"$@\"\n")
	return b.String()
}

// simProviderScript is the provider wrapper script: the standalone simulation provider
// when one was given, else this binary's `dev sim-provider`.
func (o demoOptions) simProviderScript() string {
	if o.simProvider != "" {
		return selfCommand{env: o.self.env, argv: []string{o.simProvider}}.script()
	}
	return o.self.script("dev", "sim-provider")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeScript writes an executable script.
func writeScript(path, body string) error {
	if err := os.WriteFile(path, []byte(body), 0o700); err != nil {
		return err
	}
	return os.Chmod(path, 0o700)
}

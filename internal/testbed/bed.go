package testbed

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

// The bed's fixed names.
const (
	Repo         = "acme/app"
	Endpoint     = "sim"
	Credentials  = "sim-pat"
	ProviderName = "sim"
	// runnerIdleTimeout is how long an idle stand-in runner waits for a job; scale-down
	// deletes idle runners long before.
	runnerIdleTimeout = 10 * time.Minute
	// CleanupTimeout bounds the final teardown.
	CleanupTimeout = 30 * time.Second
)

// Options configure a Bed.
type Options struct {
	// BaseDir is where the bed's temporary directory is made ("" = the system default).
	BaseDir string
	// DirPrefix starts the temporary directory's name ("" = "garrison-demo-").
	DirPrefix string
	// Tools runs the bed's tools (see RunTool): the wrapper scripts run Tools followed by
	// ToolSimProvider or ToolStandinRunner.
	Tools Command
	// SimProvider, when set, is a standalone simulation provider executable (a build of
	// ./providers/sim) run instead of Tools' ToolSimProvider.
	SimProvider string
	// BootDelay is how long the simulation provider takes to create an instance.
	BootDelay time.Duration
	// JobDuration is how long the stand-in runners run each job.
	JobDuration time.Duration
	// ScaleDownGrace, when set, is the server's [reconcile] scale_down_grace.
	ScaleDownGrace time.Duration
	// Reconcile sets more [reconcile] durations of the server (key → value), for tests.
	Reconcile map[string]time.Duration
	// ProviderExternal is added to the simulation provider's [provider.external] table
	// (TOML lines, e.g. command_timeouts), for tests.
	ProviderExternal string
	// SimAddr is the forge simulator's listen address ("" = a free loopback port).
	SimAddr string
	// SimWrap, when set, wraps the simulator's HTTP handler (tests watch the runners'
	// calls with it).
	SimWrap func(http.Handler) http.Handler
	// Out receives progress lines (nil = discarded).
	Out io.Writer
}

// Bed is one offline garrison environment: a temporary directory with the wrapper
// scripts, the runner cache and the configs, the forge simulator serving the repository
// Repo, and (after StartServer, or with URL set to a server started elsewhere) a garrison
// server and an API client logged in to it (after Login or Setup).
type Bed struct {
	opts Options
	out  io.Writer

	Dir    string         // the temporary directory
	Sim    *forgesim.Sim  // the forge simulator
	Starts *StartRecorder // when each job was reported started
	PAT    string         // the simulator's personal access token

	URL          string              // the server's base URL
	API          *apiclient.Client   // logged in by Login
	ControllerID string              // set by SetControllerURLs
	PoolIDs      []string            // the pools Setup created
	ScaleSetIDs  []uint              // the scale sets Setup created
	Queued       map[int64]time.Time // job id → when the bed queued it

	AdminUser     string // the administrator Login created
	AdminPassword string // and its password

	simSrv *http.Server
	srv    *inProcessServer
}

// New makes the temporary directory, writes the wrapper scripts, the runner cache and the
// configs, and starts the forge simulator. Close stops and removes everything.
func New(o Options) (*Bed, error) {
	prefix := o.DirPrefix
	if prefix == "" {
		prefix = "garrison-demo-"
	}
	dir, err := os.MkdirTemp(o.BaseDir, prefix)
	if err != nil {
		return nil, fmt.Errorf("making the bed's directory: %w", err)
	}
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	b := &Bed{opts: o, out: out, Dir: dir, PAT: "ghp_bed" + RandomToken(12), Queued: map[int64]time.Time{}}
	if err := b.start(); err != nil {
		return nil, errors.Join(err, b.Close(false))
	}
	return b, nil
}

// Path joins elem to the bed's directory.
func (b *Bed) Path(elem ...string) string { return filepath.Join(append([]string{b.Dir}, elem...)...) }

// start prepares the files and starts the simulator.
func (b *Bed) start() error {
	if err := b.writeFiles(); err != nil {
		return err
	}
	return b.startSim()
}

// ProviderScript is the wrapper script that runs the simulation provider.
func (b *Bed) ProviderScript() string { return b.Path("bin", "garrison-provider-sim") }

// ConfigFile is the server config file the bed writes.
func (b *Bed) ConfigFile() string { return b.Path("config.toml") }

// writeFiles writes the wrapper scripts, the unpacked runner and the configs.
func (b *Bed) writeFiles() error {
	if err := os.MkdirAll(b.Path("bin"), 0o700); err != nil {
		return err
	}
	if err := WriteScript(b.ProviderScript(), b.simProviderScript()); err != nil {
		return err
	}
	runner := b.Path("bin", "garrison-standin-runner")
	if err := WriteScript(runner, b.opts.Tools.Script(ToolStandinRunner)); err != nil {
		return err
	}
	if err := b.writeRunnerCache(runner); err != nil {
		return err
	}
	if err := os.WriteFile(b.SimConfigPath(), []byte(b.simConfig()), 0o600); err != nil {
		return err
	}
	return os.WriteFile(b.ConfigFile(), []byte(b.ServerConfig(b.ProviderScript())), 0o600)
}

// writeRunnerCache builds the stand-in runner archive around the runner wrapper, keeps it
// for the simulator to serve like GitHub's downloads, and unpacks it as the provider's
// runner cache so no instance needs to download it.
func (b *Bed) writeRunnerCache(runner string) error {
	tarball, err := standin.Tarball(runner)
	if err != nil {
		return err
	}
	if err := os.WriteFile(b.Path("runner.tar.gz"), tarball, 0o600); err != nil {
		return err
	}
	return untarGz(tarball, b.Path("runner-cache"))
}

// SimConfigPath is the simulation provider's config file.
func (b *Bed) SimConfigPath() string { return b.Path("sim.toml") }

// SetProviderFault rewrites the simulation provider's config with extra top-level TOML
// settings (e.g. "failure_rate = 1.0" or "hang = true"; "" restores it): each provider
// call reads the file, so the provider misbehaves from its next call on, with no change
// in garrison.
func (b *Bed) SetProviderFault(settings string) error {
	if settings != "" && !strings.HasSuffix(settings, "\n") {
		settings += "\n"
	}
	tmp := b.SimConfigPath() + ".new"
	if err := os.WriteFile(tmp, []byte(settings+b.simConfig()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, b.SimConfigPath()) // a provider starting meanwhile reads one or the other
}

// simConfig is the simulation provider's config: script boot with the runner cache.
func (b *Bed) simConfig() string {
	return fmt.Sprintf(`state_dir = %q
boot = "script"
boot_delay = %q
runner_cache = %q

[boot_env]
%s = %q
%s = %q
`, b.Path("sim-state"), b.opts.BootDelay.String(), b.Path("runner-cache"),
		standin.EnvIdleTimeout, runnerIdleTimeout.String(), standin.EnvJobDuration, b.opts.JobDuration.String())
}

// ServerConfig is a server config that registers provider (an executable) as the
// simulation provider ProviderName, with the [reconcile] settings of the options.
func (b *Bed) ServerConfig(provider string) string {
	keys := map[string]time.Duration{}
	maps.Copy(keys, b.opts.Reconcile)
	if b.opts.ScaleDownGrace > 0 {
		keys["scale_down_grace"] = b.opts.ScaleDownGrace
	}
	reconcile := ""
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		reconcile += fmt.Sprintf("%s = %q\n", k, keys[k].String())
	}
	if reconcile != "" {
		reconcile = "[reconcile]\n" + reconcile + "\n"
	}
	// The log stream is on, for garrison logs and the web UI's log page. Access lines go
	// at debug: a failed test's log tail then shows what the server did, not requests.
	logging := "[logging]\nenable_log_streamer = true\naccess_log_level = \"debug\"\n\n"
	return reconcile + logging + fmt.Sprintf(`[[provider]]
name = %q
provider_type = "external"
description = "simulation provider: instances are local processes"
  [provider.external]
  provider_executable = %q
  config_file = %q
  interface_version = "v0.1.1"
`, ProviderName, provider, b.SimConfigPath()) + b.opts.ProviderExternal
}

// startSim serves the forge simulator through the start recorder.
func (b *Bed) startSim() error {
	b.Sim = forgesim.New(forgesim.Options{})
	b.Starts = NewStartRecorder(b.Sim)
	addr := b.opts.SimAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening for the forge simulator: %w", err)
	}
	var h http.Handler = b.Starts
	if b.opts.SimWrap != nil {
		h = b.opts.SimWrap(h)
	}
	b.simSrv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	b.Sim.SetURL("http://" + ln.Addr().String())
	go func() { _ = b.simSrv.Serve(ln) }()
	tarball, err := os.ReadFile(b.Path("runner.tar.gz"))
	if err != nil {
		return err
	}
	b.Sim.SetRunnerTarball(tarball)
	b.Sim.AddToken(b.PAT)
	b.Sim.AddOrg("acme")
	return b.Sim.AddRepo(Repo)
}

// Close stops the in-process server, removes whatever instances the provider still has
// (killing their processes), stops the simulator and, unless keep, removes the directory.
func (b *Bed) Close(keep bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
	defer cancel()
	var errs []error
	if b.srv != nil {
		errs = append(errs, b.srv.stop())
		b.srv = nil
	}
	if b.ControllerID != "" {
		errs = append(errs, b.RemoveAllInstances(ctx))
	}
	if b.simSrv != nil {
		errs = append(errs, b.simSrv.Shutdown(ctx), b.Sim.Close())
		b.simSrv = nil
	}
	if !keep {
		errs = append(errs, os.RemoveAll(b.Dir))
	}
	return errors.Join(errs...)
}

// SimProvider opens the simulation provider's state in-process, as the controller sees it.
func (b *Bed) SimProvider() (*simprovider.Provider, error) {
	cfg, err := simprovider.LoadConfig(b.SimConfigPath())
	if err != nil {
		return nil, err
	}
	return simprovider.NewWithConfig(cfg, sdk.Environment{ControllerID: b.ControllerID, ConfigFile: b.SimConfigPath()})
}

// RemoveAllInstances is the provider's RemoveAllInstances for this controller.
func (b *Bed) RemoveAllInstances(ctx context.Context) error {
	p, err := b.SimProvider()
	if err != nil {
		return err
	}
	if err := p.RemoveAllInstances(ctx); err != nil {
		return fmt.Errorf("removing the simulated instances: %w", err)
	}
	return nil
}

// simProviderScript is the provider wrapper script: the standalone simulation provider
// when one was given, else Tools' ToolSimProvider.
func (b *Bed) simProviderScript() string {
	if b.opts.SimProvider != "" {
		return Command{Env: b.opts.Tools.Env, Argv: []string{b.opts.SimProvider}}.Script()
	}
	return b.opts.Tools.Script(ToolSimProvider)
}

// Command is how a shell script or a child process runs a program: environment
// assignments to export, then argv, followed by the command's own arguments.
type Command struct {
	Env  []string
	Argv []string
}

// Script is a /bin/sh script that runs the command with args and the script's arguments.
func (c Command) Script(args ...string) string {
	var s strings.Builder
	s.WriteString("#!/bin/sh\n# written by garrison's testbed\n")
	for _, e := range c.Env {
		s.WriteString("export " + ShellQuote(e) + "\n")
	}
	s.WriteString("exec")
	for _, a := range append(append([]string(nil), c.Argv...), args...) {
		s.WriteString(" " + ShellQuote(a))
	}
	s.WriteString(" \"$@\"\n")
	return s.String()
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WriteScript writes an executable script.
func WriteScript(path, body string) error {
	if err := os.WriteFile(path, []byte(body), 0o700); err != nil {
		return err
	}
	return os.Chmod(path, 0o700)
}

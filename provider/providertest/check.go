package providertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/provider"
)

// Step names, in the order they run.
const (
	StepConfig        = "config"
	StepIntrospect    = "introspect"
	StepCreate        = "create"
	StepGet           = "get"
	StepList          = "list pool"
	StepListOther     = "list other pool"
	StepStop          = "stop"
	StepStart         = "start"
	StepDelete        = "delete"
	StepGetDeleted    = "get after delete"
	StepListDeleted   = "list after delete"
	StepDeleteAgain   = "delete again"
	StepDeleteUnknown = "delete unknown name"
	StepRemoveAll     = "remove all"
)

// Check runs the conformance steps against the provider and returns the
// report. It never panics on provider misbehaviour.
func Check(ctx context.Context, opts Options) Report {
	opts = opts.withDefaults()
	c := &checker{ctx: ctx, opts: opts, rep: &Report{Executable: opts.Executable}, bad: map[string]bool{}}
	c.run(StepConfig, nil, c.configure)
	c.run(StepIntrospect, []string{StepConfig}, c.introspect)
	c.run(StepCreate, []string{StepConfig}, c.create)
	created := []string{StepCreate}
	c.run(StepGet, created, c.get)
	c.run(StepList, created, c.list)
	c.run(StepListOther, created, c.listOther)
	c.run(StepStop, created, c.stop)
	c.run(StepStart, created, c.start)
	c.run(StepDelete, created, c.delete)
	deleted := []string{StepDelete}
	c.run(StepGetDeleted, deleted, c.getDeleted)
	c.run(StepListDeleted, deleted, c.listDeleted)
	c.run(StepDeleteAgain, deleted, c.deleteAgain)
	c.run(StepDeleteUnknown, []string{StepConfig}, c.deleteUnknown)
	c.run(StepRemoveAll, []string{StepConfig}, c.removeAll)
	return *c.rep
}

// checker carries the state between steps.
type checker struct {
	ctx  context.Context
	opts Options
	rep  *Report
	bad  map[string]bool // steps that failed or were skipped
	p    *providerexec.Provider
	name string
	inst provider.ProviderInstance // as returned by create
}

// run executes one step unless a dependency failed; fn returns a note for
// a pass or the reason of a failure.
func (c *checker) run(step string, deps []string, fn func(context.Context) (string, error)) {
	for _, d := range deps {
		if c.bad[d] {
			c.bad[step] = true
			c.rep.Results = append(c.rep.Results, Result{Step: step, Outcome: Skip, Reason: "skipped: " + d + " did not pass"})
			return
		}
	}
	start := time.Now()
	note, err := fn(c.ctx)
	res := Result{Step: step, Outcome: Pass, Reason: note, Duration: time.Since(start)}
	if err != nil {
		res.Outcome, res.Reason = Fail, err.Error()
		c.bad[step] = true
	}
	c.rep.Results = append(c.rep.Results, res)
}

// target names the created instance in pool.
func (c *checker) target(pool string) provider.Target {
	return provider.Target{PoolID: pool, InstanceID: c.inst.ProviderID, ExtraSpecs: c.opts.ExtraSpecs}
}

// bootstrap returns a CreateInstance request for name in pool.
func (c *checker) bootstrap(name, pool string) provider.BootstrapInstance {
	return provider.BootstrapInstance{
		Name: name, PoolID: pool, OSType: c.opts.OSType, OSArch: c.opts.OSArch,
		Image: c.opts.Image, Flavor: c.opts.Flavor, ExtraSpecs: c.opts.ExtraSpecs,
		RepoURL:       "https://github.example/garrison/conformance",
		CallbackURL:   "https://garrison.example/api/v1/callbacks",
		MetadataURL:   "https://garrison.example/api/v1/metadata",
		InstanceToken: "conformance-token",
		Tools: []provider.RunnerApplicationDownload{{
			OS: "linux", Architecture: "x64", Filename: "actions-runner-linux-x64.tar.gz",
			DownloadURL: "https://github.example/actions-runner-linux-x64.tar.gz",
		}},
		JitConfigEnabled: true,
	}
}

// configure validates the options and builds the host-side provider.
func (c *checker) configure(context.Context) (string, error) {
	p, err := providerexec.New(providerexec.Config{
		Name: "under-test", Executable: c.opts.Executable, ConfigFile: c.opts.ConfigFile,
		InterfaceVersion: c.opts.InterfaceVersion, ControllerID: c.opts.ControllerID,
		EnvPrefixes: c.opts.EnvPrefixes, Environ: c.opts.Environ, ExecTimeout: c.opts.CallTimeout,
	})
	if err != nil {
		return "", err
	}
	c.p = p
	return "interface " + p.InterfaceVersion(), nil
}

// introspect asks for version and interface versions.
func (c *checker) introspect(ctx context.Context) (string, error) {
	info, err := c.p.Introspect(ctx)
	if err != nil {
		return "", err
	}
	note := fmt.Sprintf("version %q, interface versions %v", info.Version, info.SupportedInterfaceVersions)
	if c.p.InterfaceVersion() == provider.InterfaceV011 && !slices.Contains(info.SupportedInterfaceVersions, provider.InterfaceV011) {
		return "", fmt.Errorf("configured for v0.1.1 but GetSupportedInterfaceVersions lists %v", info.SupportedInterfaceVersions)
	}
	return note, nil
}

// Causes wrapped into step reasons.
var (
	errWrongStatus = errors.New("wrong status")
	errMismatch    = errors.New("instance mismatch")
)

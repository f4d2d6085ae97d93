package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

var (
	pendingCreate = []garrison.InstanceStatus{garrison.InstancePendingCreate}
	creating      = []garrison.InstanceStatus{garrison.InstanceCreating}
)

// provision takes a pending_create instance through one create attempt: a fresh JIT
// runner (GitHub), a fresh instance token, the bootstrap document, then CreateInstance.
// An instance of a pool disabled meanwhile is not created: its request is dropped.
func (r *Reconciler) provision(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	if in.ScaleSetID != 0 && len(in.JITConfig) == 0 {
		return r.dropUnregistered(ctx, env, in)
	}
	if !env.pool.Enabled {
		return r.dropRequest(ctx, env, in)
	}
	releaseProvider, ok := r.takeSlot(env, budgetProvider)
	if !ok {
		return outcome{}, nil // the budget hands the key back when a slot frees
	}
	defer releaseProvider()
	healthy := r.poolHealthy(env.pool.ID) // a fault this attempt clears is news to the pool's status
	releaseForge, ok := r.takeSlot(env, budgetCredentials)
	if !ok {
		return outcome{}, nil
	}
	bi, specs, err := r.prepare(ctx, env, &in)
	releaseForge()
	if ctx.Err() == nil {
		r.notePoolFault(env.pool, err)
	}
	var rl *garrison.RateLimitError
	switch {
	case ctx.Err() != nil:
		return outcome{}, nil // shutting down: the next process provisions it
	case errors.Is(err, errStale):
		return outcome{}, nil // moved on meanwhile
	case errors.As(err, &rl):
		return outcome{res: r.poolRateLimited(env, rl)}, nil // not a failed attempt: it waits for the forge
	case err != nil:
		r.failCreate(ctx, env, in, pendingCreate, fmt.Errorf("prepare instance: %w", err), false)
		return done, nil
	}
	in, err = r.transition(ctx, env, in.Name, pendingCreate, garrison.InstanceCreating, garrison.LevelInfo,
		fmt.Sprintf("creating instance (attempt %d)", in.CreateAttempt), nil)
	if err != nil {
		return outcome{}, ignoreStale(err)
	}
	callCtx, cancel := context.WithTimeout(ctx, time.Duration(env.pool.BootstrapTimeout())*time.Minute)
	defer cancel()
	pi, err := env.prov.CreateInstance(callCtx, bi, specs)
	if err == nil && pi.Status == provider.StatusRunning {
		releaseProvider() // recording the answer calls no provider; a failure's cleanup does
	}
	if ctx.Err() != nil {
		return outcome{}, nil // shutting down: the next process resolves the creating instance
	}
	if !r.finishCreate(ctx, env, in, pi, err) && healthy && r.poolHealthy(env.pool.ID) {
		return outcome{}, nil // a runner up in a healthy pool gives its plan nothing new
	}
	return done, nil
}

// dropRequest removes a pending_create instance that will not be created (its pool was
// disabled since it was requested), with the forge runner an interrupted attempt may have
// registered for it.
func (r *Reconciler) dropRequest(ctx context.Context, env *poolEnv, in garrison.Instance) (outcome, error) {
	if in.AgentID != 0 {
		release, ok := r.takeSlot(env, budgetCredentials)
		if !ok {
			return outcome{}, nil
		}
		err := r.deregister(ctx, env, in)
		release()
		var rl *garrison.RateLimitError
		if errors.As(err, &rl) {
			return outcome{res: r.poolRateLimited(env, rl)}, nil
		}
		if err != nil {
			return outcome{}, fmt.Errorf("reconcile: drop instance request %s: %w", in.Name, err)
		}
	}
	if err := r.o.Store.DeleteInstance(ctx, in.Name); err != nil {
		return outcome{}, fmt.Errorf("reconcile: drop instance request %s: %w", in.Name, err)
	}
	r.log.Info("instance request dropped: the pool is disabled", env.attrs(slog.String("instance", in.Name))...)
	return done, nil
}

// ignoreStale is err unless it only says the instance moved on meanwhile.
func ignoreStale(err error) error {
	if errors.Is(err, errStale) {
		return nil
	}
	return err
}

// prepare registers the JIT runner and builds the CreateInstance document.
func (r *Reconciler) prepare(ctx context.Context, env *poolEnv, in *garrison.Instance) (provider.BootstrapInstance, []byte, error) {
	if env.jit() && in.ScaleSetID == 0 { // a scale set's runner got its JIT config from the Actions service
		if err := r.registerJIT(ctx, env, in); err != nil {
			return provider.BootstrapInstance{}, nil, err
		}
	}
	token, err := r.o.Tokens.MintInstance(garrison.IdentityOf(*in, env.entity), time.Duration(env.pool.BootstrapTimeout())*time.Minute)
	if err != nil {
		return provider.BootstrapInstance{}, nil, fmt.Errorf("mint instance token: %w", err)
	}
	return r.bootstrapInstance(ctx, env, *in, token)
}

// registerJIT creates the instance's JIT runner (replacing one left by an earlier
// attempt) and stores its config and id on the instance.
func (r *Reconciler) registerJIT(ctx context.Context, env *poolEnv, in *garrison.Instance) error {
	f, err := env.getForge(ctx)
	if err != nil {
		return err
	}
	if err := r.removeRunner(ctx, env, f, *in); err != nil {
		return err
	}
	req := garrison.JITRequest{Name: in.Name, RunnerGroup: r.runnerGroup(env), Labels: env.pool.TagNames()}
	cfg, err := f.CreateJITConfig(ctx, env.entity, req)
	if errors.Is(err, garrison.ErrConflict) {
		// A runner of that name survives from an attempt that crashed before recording it.
		if err = r.removeRunnerNamed(ctx, env, f, in.Name); err == nil {
			cfg, err = f.CreateJITConfig(ctx, env.entity, req)
		}
	}
	if err != nil {
		return fmt.Errorf("create JIT config: %w", err)
	}
	*in, err = r.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
		if i.Status != garrison.InstancePendingCreate {
			return errStale
		}
		i.JITConfig, i.AgentID = cfg.Files, cfg.RunnerID
		return nil
	})
	return err
}

// removeRunner deregisters the instance's forge runner, if it has one; a missing one is
// fine.
func (r *Reconciler) removeRunner(ctx context.Context, env *poolEnv, f Forge, in garrison.Instance) error {
	if in.AgentID == 0 {
		return nil
	}
	err := f.DeleteRunner(ctx, env.entity, in.AgentID)
	if err != nil && !errors.Is(err, garrison.ErrNotFound) {
		return fmt.Errorf("remove runner %d: %w", in.AgentID, err)
	}
	return nil
}

// removeRunnerNamed deregisters the forge runner with that name.
func (r *Reconciler) removeRunnerNamed(ctx context.Context, env *poolEnv, f Forge, name string) error {
	runners, err := f.ListRunners(ctx, env.entity)
	if err != nil {
		return fmt.Errorf("list runners: %w", err)
	}
	for _, rn := range runners {
		if rn.Name == name {
			return r.removeRunner(ctx, env, f, garrison.Instance{AgentID: rn.ID})
		}
	}
	return nil
}

// finishCreate records what CreateInstance answered (provider-contract §9 O-5..O-8). It
// reports whether the pool's plan has something new to act on: anything but a runner
// created as planned.
func (r *Reconciler) finishCreate(ctx context.Context, env *poolEnv, in garrison.Instance, pi provider.ProviderInstance, err error) bool {
	switch {
	case err != nil:
		r.failCreate(ctx, env, in, creating, fmt.Errorf("create instance: %w", err), true)
	case pi.Status == provider.StatusRunning:
		return !r.created(ctx, env, in, pi)
	default:
		// error, or stopped/unknown which cannot follow creating: a provisioning failure;
		// keep the provider id so the cleanup targets the right instance (O-5, O-6, D-2, D-5).
		fault := pi.ProviderFault
		if len(fault) == 0 {
			fault = []byte(fmt.Sprintf("provider answered status %q to CreateInstance", pi.Status))
		}
		in.ProviderID = pi.ProviderID
		r.storeFailure(ctx, env, in, creating, fault, func(i *garrison.Instance) { i.ProviderID = pi.ProviderID })
		r.cleanup(ctx, env, in)
	}
	return true
}

// created records a running instance; a runner that finished its job meanwhile is
// marked for deletion at once. It reports whether the instance is simply running now.
func (r *Reconciler) created(ctx context.Context, env *poolEnv, in garrison.Instance, pi provider.ProviderInstance) bool {
	out, err := r.transition(ctx, env, in.Name, creating, garrison.InstanceRunning, garrison.LevelInfo,
		"instance created by the provider", func(i *garrison.Instance) { applyProviderInstance(i, pi) })
	if errors.Is(err, garrison.ErrFenced) {
		// This replica paused past its claim: the pool's new holder resolves the instance
		// from the provider (it is creating in the store).
		r.log.Warn("reconcile: the pool was taken over; the created instance is left to its new holder",
			env.attrs(slog.String("instance", in.Name))...)
		return false
	}
	if errors.Is(err, garrison.ErrConflict) {
		// O-8: the provider id belongs to another instance; never delete that one.
		r.storeFailure(ctx, env, in, creating, []byte("provider id "+pi.ProviderID+" is already used by another instance"), nil)
		return false
	}
	if err != nil {
		r.log.Error("reconcile: record created instance", env.attrs(slog.String("instance", in.Name), slog.Any("err", err))...)
		return false
	}
	if pi.Name != "" && pi.Name != in.Name {
		r.event(ctx, env, in.Name, garrison.LevelWarning, fmt.Sprintf(
			"the provider reports this instance as %q; garrison matches it by its provider id %s", pi.Name, pi.ProviderID))
	}
	if out.RunnerStatus == garrison.RunnerTerminated {
		r.markDelete(ctx, env, in.Name, "runner finished its job while the instance was being created")
		return false
	}
	return true
}

// applyProviderInstance copies what the provider reported onto the instance.
func applyProviderInstance(i *garrison.Instance, pi provider.ProviderInstance) {
	i.ProviderID = pi.ProviderID
	if pi.OSName != "" {
		i.OSName = pi.OSName
	}
	if pi.OSVersion != "" {
		i.OSVersion = pi.OSVersion
	}
	if len(pi.Addresses) > 0 {
		i.Addresses = i.Addresses[:0]
		for _, a := range pi.Addresses {
			i.Addresses = append(i.Addresses, garrison.Address{Address: a.Address, Type: string(a.Type)})
		}
	}
	i.ProviderFault = nil
}

// failCreate records a failed attempt and cleans up after it: the provider is asked to
// remove whatever it made, by name (O-7), when it was called.
func (r *Reconciler) failCreate(ctx context.Context, env *poolEnv, in garrison.Instance, from []garrison.InstanceStatus, err error, called bool) {
	r.storeFailure(ctx, env, in, from, faultOf(err), nil)
	if called {
		r.cleanup(ctx, env, in)
		return
	}
	r.dropRunner(ctx, env, in)
}

// storeFailure moves the instance to error with the fault visible.
func (r *Reconciler) storeFailure(ctx context.Context, env *poolEnv, in garrison.Instance, from []garrison.InstanceStatus, fault []byte, edit func(*garrison.Instance)) {
	msg := fmt.Sprintf("create attempt %d of %d failed: %s", in.CreateAttempt, r.o.Policy.MaxCreateAttempts, fault)
	_, err := r.transition(ctx, env, in.Name, from, garrison.InstanceError, garrison.LevelError, msg, func(i *garrison.Instance) {
		i.ProviderFault = fault
		if edit != nil {
			edit(i)
		}
	})
	if err != nil && ctx.Err() == nil {
		r.log.Error("reconcile: record failed create", env.attrs(slog.String("instance", in.Name), slog.Any("err", err))...)
	}
}

// cleanup deletes a failed create in the provider (provider id if known, else name)
// and deregisters its runner.
func (r *Reconciler) cleanup(ctx context.Context, env *poolEnv, in garrison.Instance) {
	if err := env.prov.DeleteInstance(ctx, providerTarget(env, in)); err != nil {
		r.event(ctx, env, in.Name, garrison.LevelWarning, "cleanup of the failed create failed: "+err.Error())
	}
	r.dropRunner(ctx, env, in)
}

// dropRunner deregisters the forge runner of a failed attempt, so that no offline
// runner is left behind while the instance waits in error, and forgets it. With the
// credentials' budget full the runner is left to the next attempt, which replaces it.
func (r *Reconciler) dropRunner(ctx context.Context, env *poolEnv, in garrison.Instance) {
	if in.AgentID == 0 {
		return
	}
	release, ok := r.trySlot(env, budgetCredentials)
	if !ok {
		return
	}
	err := r.deregister(ctx, env, in)
	release()
	if err != nil {
		r.event(ctx, env, in.Name, garrison.LevelWarning, "deregistering the runner of the failed create failed: "+err.Error())
		return
	}
	_, err = r.o.Store.UpdateInstance(ctx, in.Name, func(i *garrison.Instance) error {
		if i.AgentID == in.AgentID {
			i.AgentID, i.JITConfig = 0, nil
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		r.log.Warn("reconcile: forget runner", env.attrs(slog.String("instance", in.Name), slog.Any("err", err))...)
	}
}

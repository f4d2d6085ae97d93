package reconcile

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// poolEnv is everything one reconcile of a pool read: the pool, its entity and sibling
// pools, the entity's instances and queued jobs, the controller, and the pool's provider.
type poolEnv struct {
	pool       garrison.Pool
	entity     garrison.Entity
	pools      []garrison.Pool
	controller garrison.Controller
	instances  []garrison.Instance
	jobs       []garrison.Job
	prov       Provider
	settings   ProviderSettings
	forges     Forges
	// waiter is the controller key a step of the environment runs for: it waits for the
	// budgets the step finds full.
	waiter waiter
	// rid is the reconcile id of the handler call that read the environment (logs).
	rid string

	mu    sync.Mutex // guards forge
	forge Forge      // resolved on first use
}

// load reads a pool's environment for planning. A missing pool gives (nil, ErrNotFound).
// The pool comes from the list of its entity's pools, which the plan reads anyway: a
// pool never changes entity, so once its entity is known one read gives both.
func (r *Reconciler) load(ctx context.Context, poolID string) (*poolEnv, error) {
	entityID, ok := r.poolEntity(poolID)
	if !ok {
		pool, err := r.o.Store.Pool(ctx, poolID)
		if err != nil {
			return nil, fmt.Errorf("reconcile: read pool %s: %w", poolID, err)
		}
		entityID = pool.EntityID
	}
	pools, err := r.o.Store.ListPools(ctx, store.PoolFilter{EntityID: entityID})
	if err != nil {
		return nil, fmt.Errorf("reconcile: list pools: %w", err)
	}
	i := slices.IndexFunc(pools, func(p garrison.Pool) bool { return p.ID == poolID })
	if i < 0 {
		return nil, garrison.Errorf(garrison.ENotFound, "reconcile: pool %s not found", poolID)
	}
	r.rememberPoolEntity(poolID, entityID)
	env, err := r.envOf(ctx, pools[i])
	if err != nil {
		return env, err
	}
	env.pools = pools
	return env, r.observe(ctx, env)
}

// poolEntity returns the entity of a pool this reconciler has read.
func (r *Reconciler) poolEntity(poolID string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.poolEntities[poolID]
	return id, ok
}

// rememberPoolEntity records the entity of a pool (forgetPool forgets it).
func (r *Reconciler) rememberPoolEntity(poolID, entityID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.poolEntities[poolID] = entityID
}

// loadPool reads the pool, its entity and provider, and the controller: what a step on
// one of its instances acts on. A missing pool gives (nil, ErrNotFound); a missing entity
// or provider (env, an ErrNotFound).
func (r *Reconciler) loadPool(ctx context.Context, poolID string) (*poolEnv, error) {
	pool, err := r.o.Store.Pool(ctx, poolID)
	if err != nil {
		return nil, fmt.Errorf("reconcile: read pool %s: %w", poolID, err)
	}
	return r.envOf(ctx, pool)
}

// envOf reads what a step on an instance of pool acts on, beyond the pool itself.
func (r *Reconciler) envOf(ctx context.Context, pool garrison.Pool) (*poolEnv, error) {
	poolID := pool.ID
	var err error
	env := &poolEnv{pool: pool, forges: r.o.Forges, rid: workqueue.ReconcileID(ctx)}
	if env.entity, err = r.o.Store.Entity(ctx, pool.EntityID); err != nil {
		return env, fmt.Errorf("reconcile: read entity of pool %s: %w", poolID, err)
	}
	if env.controller, err = r.o.Store.Controller(ctx); err != nil {
		return env, fmt.Errorf("reconcile: read controller: %w", err)
	}
	if env.prov, env.settings, err = r.o.Providers.Provider(pool.ProviderName); err != nil {
		return env, fmt.Errorf("reconcile: pool %s: %w", poolID, err)
	}
	return env, nil
}

// observe reads the entity's instances and queued jobs (the jobs through the cache).
func (r *Reconciler) observe(ctx context.Context, env *poolEnv) error {
	var err error
	if env.instances, err = r.o.Store.ListInstances(ctx, store.InstanceFilter{EntityID: env.entity.ID}); err != nil {
		return fmt.Errorf("reconcile: list instances: %w", err)
	}
	if env.jobs, err = r.jobs.Queued(ctx, env.entity.ID); err != nil {
		return err
	}
	r.dropScaleSetJobs(ctx, env)
	return nil
}

// spec is the pool's plan.Spec.
func (env *poolEnv) spec(pol Policy) plan.Spec {
	return plan.Spec{
		Pool: env.pool, Pools: env.pools, Balancer: env.entity.Balancer, Policy: pol,
		MinimumJobAge: time.Duration(env.controller.MinimumJobAgeBackoff) * time.Second,
	}
}

// getForge returns the entity's forge client.
func (env *poolEnv) getForge(ctx context.Context) (Forge, error) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.forge != nil {
		return env.forge, nil
	}
	f, err := env.forges.Forge(ctx, env.entity)
	if err != nil {
		return nil, fmt.Errorf("reconcile: forge of %s: %w", env.entity.FullName(), err)
	}
	env.forge = f
	return f, nil
}

// jit reports whether runners of the pool use JIT configs: GitHub, and the provider
// does not disable them.
func (env *poolEnv) jit() bool {
	return env.entity.ForgeType == garrison.GitHub && !env.settings.DisableJIT
}

// attrs are the log attributes of the pool (and of the handler call), followed by extra.
func (env *poolEnv) attrs(extra ...any) []any {
	out := []any{slog.String("pool", env.pool.ID), slog.String("entity", env.entity.FullName())}
	if env.rid != "" {
		out = append(out, slog.String("reconcile_id", env.rid))
	}
	return append(out, extra...)
}

// budget names the budget of kind the pool's calls draw on: its provider's or its
// entity's credentials'.
func (env *poolEnv) budget(kind string) (budgetID, string, int) {
	if kind == budgetProvider {
		return budgetID{kind, env.pool.ProviderName}, env.pool.ProviderName, env.settings.Concurrency
	}
	id, name := credentialsBudget(env.entity)
	return id, name, 0
}

// credentialsBudget names the budget of the entity's forge credentials.
func credentialsBudget(e garrison.Entity) (budgetID, string) {
	id := strconv.FormatUint(uint64(e.CredentialsID), 10)
	return budgetID{budgetCredentials, id}, cmp.Or(e.CredentialsName, id)
}

// takeSlot takes a slot of the pool's budget of kind for the step's key; false when the
// budget is full (the key then waits for a slot: the step returns without acting).
func (r *Reconciler) takeSlot(env *poolEnv, kind string) (release func(), ok bool) {
	id, name, limit := env.budget(kind)
	return r.budgets.take(id, name, limit, env.waiter)
}

// trySlot takes a slot of the pool's budget of kind if one is free, without waiting for
// one: for a call that may be left to a later step.
func (r *Reconciler) trySlot(env *poolEnv, kind string) (release func(), ok bool) {
	id, name, limit := env.budget(kind)
	return r.budgets.take(id, name, limit, waiter{})
}

package reconcile

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// storeSnapshot is the whole store as one triage read it: a handful of queries instead
// of five per pool.
type storeSnapshot struct {
	controller garrison.Controller
	pools      []garrison.Pool
	byEntity   map[string][]garrison.Pool     // entity id -> its pools
	entities   map[string]garrison.Entity     // by id
	instances  map[string][]garrison.Instance // entity id -> the instances of its pools
	jobs       map[string][]garrison.Job      // entity id -> queued jobs, read once per triage
	reasoned   map[string]bool                // entity ids whose job reasons were recorded
	setRunners []garrison.Instance            // the instances of scale sets
}

// readSnapshot reads the controller, every pool, entity and instance. Pools are read
// first: an instance of a pool made after that read is left out, and whoever made the
// pool notified it.
func (r *Reconciler) readSnapshot(ctx context.Context) (*storeSnapshot, error) {
	s := &storeSnapshot{byEntity: map[string][]garrison.Pool{}, entities: map[string]garrison.Entity{},
		instances: map[string][]garrison.Instance{}, jobs: map[string][]garrison.Job{}, reasoned: map[string]bool{}}
	var err error
	if s.pools, err = r.o.Store.ListPools(ctx, store.PoolFilter{}); err != nil {
		return nil, fmt.Errorf("reconcile: list pools: %w", err)
	}
	if s.controller, err = r.o.Store.Controller(ctx); err != nil {
		return nil, fmt.Errorf("reconcile: read controller: %w", err)
	}
	ents, err := r.o.Store.ListEntities(ctx, store.EntityFilter{})
	if err != nil {
		return nil, fmt.Errorf("reconcile: list entities: %w", err)
	}
	for _, e := range ents {
		s.entities[e.ID] = e
	}
	entityOf := make(map[string]string, len(s.pools))
	for _, p := range s.pools {
		s.byEntity[p.EntityID] = append(s.byEntity[p.EntityID], p)
		entityOf[p.ID] = p.EntityID
	}
	insts, err := r.o.Store.ListInstances(ctx, store.InstanceFilter{})
	if err != nil {
		return nil, fmt.Errorf("reconcile: list instances: %w", err)
	}
	for _, in := range insts {
		if e, ok := entityOf[in.PoolID]; ok {
			s.instances[e] = append(s.instances[e], in)
		}
		if in.ScaleSetID != 0 {
			s.setRunners = append(s.setRunners, in)
		}
	}
	return s, nil
}

// triage is the resync's look at every pool. It reads the store once and plans each
// pool against that read; only a pool whose plan has an operation goes to the workers,
// which read it afresh before acting. A pool with nothing to do counts as reconciled.
// Every write that could give a pool work also notifies it, so the triage is the safety
// net, and it costs a few queries, not five per pool. It also schedules every pool's
// repair and every entity's sweeps that are not scheduled (new ones, and at the start
// all). seen, when set, is told the pools before any is triaged.
func (r *Reconciler) triage(ctx context.Context, seen func([]garrison.Pool)) error {
	r.dropHints() // the previous triage's: not held while this one reads the store again
	snap, err := r.readSnapshot(ctx)
	if err != nil {
		return err
	}
	if seen != nil {
		seen(snap.pools)
	}
	for _, p := range snap.pools {
		if env := r.triagePool(ctx, snap, p); env != nil {
			r.hintRepair(env)
		}
		r.ensureRepair(p.ID)
	}
	for id := range snap.entities {
		r.ensureSweep(id)
		r.pruneJobs(ctx, snap, id)
	}
	r.resumeSetRunners(snap.setRunners)
	return nil
}

// resumeSetRunners hands the instances controller the scale sets' runners waiting for a
// create or delete step that it does not hold. No pool plans them: whoever changes one
// hands it over (the listener, the webhook intake, the API), so this is the safety net,
// as the triage is for pools.
func (r *Reconciler) resumeSetRunners(insts []garrison.Instance) {
	for _, in := range insts {
		if in.Status != garrison.InstancePendingCreate && !hasStatus(deletable, in.Status) {
			continue
		}
		if !r.instances.Has(in.Name) && !r.instanceBusy(in.Name) {
			r.instances.Add(in.Name)
		}
	}
}

// pruneJobs deletes from the ledger the entity's jobs queued for longer than JobTTL: the
// forge has dropped them (GitHub keeps a job queued for a day at most) without telling
// garrison, or no pool could ever serve them (jobs of GitHub-hosted runners, say, whose
// later deliveries were lost).
func (r *Reconciler) pruneJobs(ctx context.Context, snap *storeSnapshot, entityID string) {
	jobs, ok := snap.jobs[entityID]
	if !ok {
		var err error
		if jobs, err = r.jobs.Queued(ctx, entityID); err != nil {
			r.log.Warn("reconcile: read queued jobs to prune", slog.String("entity", entityID), slog.Any("err", err))
			return
		}
	}
	cutoff := r.o.Now().Add(-r.o.Policy.JobTTL)
	for _, j := range jobs {
		if !j.CreatedAt.Before(cutoff) {
			continue
		}
		if err := r.o.Store.DeleteJob(ctx, j.ID); err != nil {
			r.log.Warn("reconcile: prune job", slog.String("entity", entityID), slog.Int64("job", j.ID), slog.Any("err", err))
			continue
		}
		r.jobs.Forget(entityID, j.ID)
		r.log.Info("reconcile: job dropped from the ledger: queued for longer than the forge keeps jobs",
			slog.String("entity", entityID), slog.Int64("job", j.ID), slog.Time("queued_at", j.CreatedAt))
	}
}

// triagePool plans one pool from the snapshot and enqueues it when it has work; any
// doubt (a missing entity or provider, a failed read) enqueues it too.
// It returns the environment it built, nil when it could not.
func (r *Reconciler) triagePool(ctx context.Context, snap *storeSnapshot, p garrison.Pool) *poolEnv {
	env, ok := r.snapshotEnv(ctx, snap, p)
	if !ok {
		r.pools.Add(p.ID)
		return nil
	}
	acts := plan.Plan(env.spec(r.o.Policy), r.observed(env))
	if hasOps(acts) {
		r.pools.Add(p.ID)
		return env
	}
	if acts.RequeueAfter > 0 {
		// The timer its last reconcile set may be a later one (the state changed since).
		r.pools.AddAfter(p.ID, acts.RequeueAfter)
	}
	if !snap.reasoned[p.EntityID] { // every pool's plan gives the entity's jobs the same reasons
		snap.reasoned[p.EntityID] = true
		r.recordReasons(ctx, env, acts)
	}
	r.noteBackoff(p, acts.Backoff)
	r.reportPool(p, nil)
	r.passes.done(p.ID, stepPlanned)
	return env
}

// snapshotEnv builds the pool's environment from the snapshot, as load would read it.
func (r *Reconciler) snapshotEnv(ctx context.Context, snap *storeSnapshot, p garrison.Pool) (*poolEnv, bool) {
	ent, ok := snap.entities[p.EntityID]
	if !ok {
		return nil, false
	}
	prov, settings, err := r.o.Providers.Provider(p.ProviderName)
	if err != nil {
		return nil, false
	}
	jobs, ok := snap.jobs[ent.ID]
	if !ok {
		if jobs, err = r.jobs.Queued(ctx, ent.ID); err != nil {
			return nil, false
		}
		snap.jobs[ent.ID] = jobs // the entity's other pools plan on the same read
	}
	return &poolEnv{pool: p, entity: ent, pools: snap.byEntity[p.EntityID], controller: snap.controller,
		instances: snap.instances[p.EntityID], jobs: jobs, prov: prov, settings: settings, forges: r.o.Forges,
		rid: workqueue.ReconcileID(ctx)}, true
}

// hasOps reports whether a plan asks for an operation (anything beyond recording the
// unserved jobs and a later look).
func hasOps(a plan.Actions) bool {
	return len(a.Creates)+len(a.Locks)+len(a.Deletes)+len(a.Retries)+len(a.Resumes)+len(a.Resolves)+len(a.Reaps) > 0
}

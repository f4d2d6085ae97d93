package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/provider"
)

// poolReadCounter counts the pool reads a worker's reconcile begins with.
type poolReadCounter struct {
	Store
	reads atomic.Int64
}

func (c *poolReadCounter) Pool(ctx context.Context, id string) (garrison.Pool, error) {
	c.reads.Add(1)
	return c.Store.Pool(ctx, id)
}

// settledPools makes two pools of one idle runner each, settled, and returns them.
func settledPools(h *harness) []garrison.Pool {
	h.t.Helper()
	pools := []garrison.Pool{h.pool(1, 3, ""), h.pool(1, 3, "")}
	r := h.reconciler(h.prov)
	for _, p := range pools {
		h.settle(r, p.ID)
		for _, in := range h.instances(p.ID) {
			h.setRunner(in.Name, garrison.RunnerIdle)
		}
	}
	return pools
}

// freshTriage runs one triage with a new reconciler (its repairs due, as after a start)
// and then the repairs it scheduled; it returns the reconciler and how many single-pool
// reads the triage itself made.
func freshTriage(t *testing.T, h *harness) (*Reconciler, int64) {
	t.Helper()
	counter := &poolReadCounter{Store: h.store}
	r := h.reconciler(h.prov)
	r.o.Store = counter
	r.jobs.store = counter
	if err := r.triage(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	reads := counter.reads.Load()
	h.drain(r)
	return r, reads
}

func TestTriageLeavesSettledPoolsToTheWorkersOnlyWithWork(t *testing.T) {
	t.Run("settled pools are not reconciled one by one", func(t *testing.T) {
		h := newHarness(t)
		settledPools(h)
		r, reads := freshTriage(t, h)
		if n := r.pools.Len(); n != 0 {
			t.Errorf("%d pools queued for the workers, want none", n)
		}
		if n := reads; n != 0 {
			t.Errorf("%d single-pool reads, want none", n)
		}
	})
	t.Run("a job nobody notified about gets a runner", func(t *testing.T) {
		h := newHarness(t)
		pools := settledPools(h)
		must(h.store.UpdateController(t.Context(), func(c *garrison.Controller) error {
			c.MinimumJobAgeBackoff = 0 // a runner is made for the job at once
			return nil
		}))(t)
		h.queueJob(7) // written to the ledger with no Notify: a lost notification
		h.resetClock()
		r, _ := freshTriage(t, h)
		if n := r.pools.Len(); n == 0 {
			t.Fatal("no pool queued for the job")
		}
		for _, p := range pools {
			h.pass(r, p.ID)
		}
		jobs := must(h.store.ListJobs(t.Context(), store.JobFilter{EntityID: h.entity.ID}))(t)
		if len(jobs) != 1 || jobs[0].LockedBy == "" {
			t.Fatalf("job 7 has no runner coming: %+v", jobs)
		}
		made := 0
		for _, p := range pools {
			for _, in := range h.instances(p.ID) {
				if in.ID == jobs[0].LockedBy {
					made++
				}
			}
		}
		if made != 1 {
			t.Errorf("job 7 is locked by %q, which is none of the pools' instances", jobs[0].LockedBy)
		}
	})
	t.Run("a job no pool can take is explained without a worker", func(t *testing.T) {
		h := newHarness(t)
		settledPools(h)
		must(h.store.UpsertJob(t.Context(), 8, func(j *garrison.Job, _ bool) error {
			j.Action, j.Labels, j.EntityID, j.EntityType = garrison.JobQueued, []string{"self-hosted", "gpu"}, h.entity.ID, h.entity.Type
			return nil
		}))(t)
		r, _ := freshTriage(t, h)
		if n := r.pools.Len(); n != 0 {
			t.Errorf("%d pools queued, want none", n)
		}
		if j := must(h.store.Job(t.Context(), 8))(t); !strings.Contains(j.Reason, "no pool has all of the labels") {
			t.Errorf("job 8's reason in the ledger: %q", j.Reason)
		}
	})
	t.Run("a repair that settles a record queues its pool", func(t *testing.T) {
		h := newHarness(t)
		pools := settledPools(h)
		gone := h.instances(pools[0].ID)[0]
		if err := os.Remove(filepath.Join(h.stateDir, "instances", gone.ProviderID+".json")); err != nil {
			t.Fatal(err) // the instance vanished behind garrison's back
		}
		time.Sleep(5 * time.Millisecond) // the record must predate the listing
		r, _ := freshTriage(t, h)
		if got := must(h.store.Instance(t.Context(), gone.Name))(t); got.Status != garrison.InstancePendingDelete {
			t.Fatalf("vanished instance is %s, want pending_delete", got.Status)
		}
		if n := r.pools.Len(); n != 1 {
			t.Errorf("%d pools queued after the repair, want 1", n)
		}
	})
}

// countingLister counts the provider listings (one per repair).
type countingLister struct {
	Provider
	lists atomic.Int64
}

func (c *countingLister) ListInstances(ctx context.Context, t provider.Target) ([]provider.ProviderInstance, error) {
	c.lists.Add(1)
	return c.Provider.ListInstances(ctx, t)
}

// TestTriageWithLeases: with pool leases (several replicas), the triage leaves idle pools
// alone like the only replica does, repairs only the pools this replica holds or takes,
// and a reconcile of a pool with nothing to do asks for no lease renewal.
func TestTriageWithLeases(t *testing.T) {
	h := newHarness(t)
	pools := settledPools(h)
	ctx := t.Context()
	if _, held, err := h.store.Lease(ctx, "pool/"+pools[1].ID, "replica-b", time.Minute); err != nil || !held {
		t.Fatalf("replica b's lease: %v %v", held, err)
	}
	lister := &countingLister{Provider: h.prov}
	r, err := New(Options{Store: h.store, Providers: ProviderMap{"sim": {Provider: lister}}, Forges: oneForge{h.forge},
		Tokens: h.tokens, InjectTemplate: injectTemplate, Now: h.clock, Leases: h.store, Holder: "replica-a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.triage(ctx, nil); err != nil {
		t.Fatal(err)
	}
	h.drain(r)
	if n := r.pools.Len(); n != 0 {
		t.Errorf("%d idle pools queued, want none", n)
	}
	if n := lister.lists.Load(); n != 1 {
		t.Errorf("%d repairs, want 1 (pool 0; pool 1 is replica b's)", n)
	}
	if _, held, _ := h.store.Lease(ctx, "pool/"+pools[0].ID, "replica-b", time.Minute); held {
		t.Error("replica a repaired pool 0 without holding its lease")
	}
	res, err := r.reconcile(ctx, pools[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	h.drain(r)
	if res.RequeueAfter > 0 && res.RequeueAfter < time.Minute {
		t.Errorf("an idle pool asks to be reconciled again after %s", res.RequeueAfter)
	}
}

// TestNotifyHeldEnqueuesOnlyHeldPools: work another replica announces is enqueued for the
// pools this replica holds, not for those another replica holds or nobody claimed yet.
func TestNotifyHeldEnqueuesOnlyHeldPools(t *testing.T) {
	h := newHarness(t)
	pools := settledPools(h)
	ctx := t.Context()
	if _, held, err := h.store.Lease(ctx, "pool/"+pools[1].ID, "replica-b", time.Minute); err != nil || !held {
		t.Fatalf("replica b's lease: %v %v", held, err)
	}
	r, err := New(Options{Store: h.store, Providers: ProviderMap{"sim": {Provider: h.prov}}, Forges: oneForge{h.forge},
		Tokens: h.tokens, InjectTemplate: injectTemplate, Now: h.clock, Leases: h.store, Holder: "replica-a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pools[:2] {
		if _, err := r.reconcile(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	h.drain(r)
	if n := r.HeldPools(); n != 1 {
		t.Fatalf("holds %d pools, want 1", n)
	}
	r.NotifyHeld(pools[0].ID, pools[1].ID, "never-claimed")
	for _, c := range []struct {
		id   string
		want bool
	}{{pools[0].ID, true}, {pools[1].ID, false}, {"never-claimed", false}} {
		if got := r.pools.Has(c.id); got != c.want {
			t.Errorf("pool %s queued %v, want %v", c.id, got, c.want)
		}
	}
}

// TestTriageDropsThePreviousHints: a triage keeps its read of each pool for the pool's
// repair and forgets the previous triage's, so that no two reads of the store are held
// at once (a hint of a pool deleted since stays no longer than the next triage).
func TestTriageDropsThePreviousHints(t *testing.T) {
	h := newHarness(t)
	pools := settledPools(h)
	r := h.reconciler(h.prov)
	r.hints["deleted-pool"] = repairHint{env: &poolEnv{}, at: time.Now()}
	if err := r.triage(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.hints["deleted-pool"]; ok {
		t.Error("the previous triage's hint is still kept")
	}
	for _, p := range pools {
		if h, ok := r.hints[p.ID]; !ok || h.env.pool.ID != p.ID {
			t.Errorf("no hint of pool %s for its repair", p.ID)
		}
	}
}

package reconcile

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// jobWriteCounter counts the job ledger write transactions.
type jobWriteCounter struct {
	Store
	writes atomic.Int64
}

func (c *jobWriteCounter) UpsertJob(ctx context.Context, id int64, fn func(*garrison.Job, bool) error) (garrison.Job, error) {
	c.writes.Add(1)
	return c.Store.UpsertJob(ctx, id, fn)
}

// TestJobReasonsInTheLedger: why a job waits is written to its ledger row when it
// changes, and only then (a restarted reconciler writes nothing new); it is cleared when
// the job gets a runner; each reason is logged once for the entity.
func TestJobReasonsInTheLedger(t *testing.T) {
	h := newHarness(t)
	p := h.pool(0, 1, "")
	h.queueJob(1)
	h.queueJob(2)
	var logs syncBuffer
	counter := &jobWriteCounter{Store: h.store}
	newReconciler := func() *Reconciler {
		r := h.reconciler(h.prov)
		r.o.Store, r.jobs.store, r.log = counter, counter, slog.New(slog.NewTextHandler(&logs, nil))
		return r
	}
	reason := func(id int64) string { return must(h.store.Job(t.Context(), id))(t).Reason }

	r := newReconciler()
	h.settle(r, p.ID) // job 1 gets the pool's one runner, job 2 waits
	if got := reason(2); !strings.Contains(got, "max_runners") {
		t.Fatalf("job 2's reason = %q, want it at max_runners", got)
	}
	if got := reason(1); got != "" {
		t.Fatalf("job 1 has a runner, and the reason %q", got)
	}
	h.queueJob(3)
	before := counter.writes.Load()
	h.settle(newReconciler(), p.ID) // a restart: job 2's reason stands; job 3 gets it too
	if n := counter.writes.Load() - before; n != 1 {
		t.Errorf("ledger writes after the restart = %d, want 1 (job 3's reason)", n)
	}
	if n := strings.Count(logs.String(), "jobs get no runner"); n != 1 {
		t.Errorf("reason logged %d times, want once:\n%s", n, logs.String())
	}

	must(h.store.UpdatePool(t.Context(), p.ID, func(p *garrison.Pool) error { p.MaxRunners = 3; return nil }))(t)
	h.settle(r, p.ID) // now jobs 2 and 3 get runners
	for _, id := range []int64{2, 3} {
		if j := must(h.store.Job(t.Context(), id))(t); j.Reason != "" || j.LockedBy == "" {
			t.Errorf("job %d: reason %q, locked by %q; want a runner and no reason", id, j.Reason, j.LockedBy)
		}
	}
}

// TestStaleQueuedJobsPruned: the resync drops from the ledger the jobs queued for longer
// than the forge keeps them, whether a pool could serve them or not, of entities with
// pools or without; younger ones stay.
func TestStaleQueuedJobsPruned(t *testing.T) {
	h := newHarness(t)
	h.pool(0, 1, "")
	lonely := must(h.store.CreateEntity(t.Context(), garrison.Entity{Type: garrison.Organization, Name: "acme",
		CredentialsID: h.entity.CredentialsID}))(t)
	queue := func(id int64, e garrison.Entity, labels ...string) {
		must(h.store.UpsertJob(t.Context(), id, func(j *garrison.Job, _ bool) error {
			j.Action, j.Labels, j.EntityID, j.EntityType = garrison.JobQueued, labels, e.ID, e.Type
			return nil
		}))(t)
	}
	queue(1, h.entity, "self-hosted", "gpu") // no pool can serve it
	queue(2, lonely, "ubuntu-latest")        // an entity without pools
	h.queueJob(3)                            // a pool could serve it
	r := h.reconciler(h.prov)
	kept := func() []int64 {
		var out []int64
		for _, id := range []int64{1, 2, 3} {
			if _, err := h.store.Job(t.Context(), id); err == nil {
				out = append(out, id)
			}
		}
		return out
	}
	for _, step := range []struct {
		after time.Duration
		want  string
	}{{23 * time.Hour, "[1 2 3]"}, {2 * time.Hour, "[]"}} {
		h.advance(step.after)
		if err := r.triage(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(kept()); got != step.want {
			t.Fatalf("jobs kept after %v more = %s, want %s", step.after, got, step.want)
		}
	}
}

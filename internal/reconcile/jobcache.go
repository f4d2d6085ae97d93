package reconcile

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/reconcile/plan"
	"github.com/garrison-ci/garrison/internal/store"
)

// jobReadOverlap is how far before its previous read a delta read of the ledger starts:
// a job written by a transaction that began before that read but committed after it
// carries an update time a little before it (a write transaction takes milliseconds).
// A write older still (a replica's clock behind ours) is found by the next full read.
const jobReadOverlap = 250 * time.Millisecond

// jobCache keeps each entity's queued jobs in memory so that a reconcile does not read
// the whole queue: it reads the jobs changed since its previous look (any replica's
// writes), and the whole queue again once per fullEvery.
type jobCache struct {
	store     Store
	now       func() time.Time
	fullEvery time.Duration

	mu       sync.Mutex // guards entities
	entities map[string]*entityJobs
}

// entityJobs is one entity's queue.
type entityJobs struct {
	mu       sync.Mutex // serialises reads of the entity's queue
	queued   map[int64]garrison.Job
	snapshot []garrison.Job // queued, oldest first; shared read-only, nil after a change
	readAt   time.Time      // when the last read started (local clock)
	fullAt   time.Time      // when the last full read started
}

func newJobCache(s Store, now func() time.Time, fullEvery time.Duration) *jobCache {
	return &jobCache{store: s, now: now, fullEvery: fullEvery, entities: map[string]*entityJobs{}}
}

// entity returns the entity's queue, empty and never read when new.
func (c *jobCache) entity(id string) *entityJobs {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entities[id]
	if e == nil {
		e = &entityJobs{queued: map[int64]garrison.Job{}}
		c.entities[id] = e
	}
	return e
}

// Queued returns the entity's queued jobs, oldest first (by creation, then id), brought
// up to date with the store. The slice is shared: callers must not modify it.
func (c *jobCache) Queued(ctx context.Context, entityID string) ([]garrison.Job, error) {
	e := c.entity(entityID)
	e.mu.Lock()
	defer e.mu.Unlock()
	start := c.now()
	if e.fullAt.IsZero() || start.Sub(e.fullAt) >= c.fullEvery {
		if err := c.readAll(ctx, e, entityID); err != nil {
			return nil, err
		}
		e.fullAt = start
	} else if err := c.readChanges(ctx, e, entityID); err != nil {
		return nil, err
	}
	e.readAt = start
	if e.snapshot == nil {
		e.snapshot = sortedJobs(e.queued)
	}
	return e.snapshot, nil
}

// readAll replaces the entity's queue with the store's.
func (c *jobCache) readAll(ctx context.Context, e *entityJobs, entityID string) error {
	jobs, err := c.store.ListJobs(ctx, store.JobFilter{EntityID: entityID, Action: garrison.JobQueued})
	if err != nil {
		return fmt.Errorf("reconcile: list jobs: %w", err)
	}
	e.queued = make(map[int64]garrison.Job, len(jobs))
	for _, j := range jobs {
		e.queued[j.ID] = j
	}
	e.snapshot = nil
	return nil
}

// readChanges applies the jobs written since the previous read (and a little before).
func (c *jobCache) readChanges(ctx context.Context, e *entityJobs, entityID string) error {
	jobs, err := c.store.ListJobs(ctx, store.JobFilter{EntityID: entityID, UpdatedSince: e.readAt.Add(-jobReadOverlap)})
	if err != nil {
		return fmt.Errorf("reconcile: list changed jobs: %w", err)
	}
	for _, j := range jobs {
		e.apply(j)
	}
	return nil
}

// apply records one job's current row: queued jobs are kept, others dropped.
func (e *entityJobs) apply(j garrison.Job) {
	old, had := e.queued[j.ID]
	switch {
	case j.Action == garrison.JobQueued:
		if had && old.UpdatedAt.After(j.UpdatedAt) {
			return // an older row than the one kept
		}
		if !had || !sameJob(old, j) {
			e.queued[j.ID] = j
			e.snapshot = nil
		}
	case had:
		delete(e.queued, j.ID)
		e.snapshot = nil
	}
}

// Put records a job this process just wrote, so the next read sees it even before the
// store's delta does.
func (c *jobCache) Put(j garrison.Job) {
	if j.EntityID == "" {
		return
	}
	e := c.entity(j.EntityID)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fullAt.IsZero() {
		return // never read: the first read will have it
	}
	e.apply(j)
}

// sameJob reports whether two rows of a job agree on what planning reads.
func sameJob(a, b garrison.Job) bool {
	return a.UpdatedAt.Equal(b.UpdatedAt) && a.LockedBy == b.LockedBy && a.Action == b.Action
}

// sortedJobs lists the queue oldest first.
func sortedJobs(m map[int64]garrison.Job) []garrison.Job {
	out := make([]garrison.Job, 0, len(m))
	for _, j := range m {
		out = append(out, j)
	}
	slices.SortFunc(out, plan.CompareJobAge)
	return out
}

// Forget drops a job this process deleted from the ledger (a delta read cannot see a
// deletion).
func (c *jobCache) Forget(entityID string, jobID int64) {
	e := c.entity(entityID)
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.queued[jobID]; ok {
		delete(e.queued, jobID)
		e.snapshot = nil
	}
}

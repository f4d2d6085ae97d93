package reconcile

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// cacheClock is a settable clock for the job cache.
type cacheClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *cacheClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *cacheClock) setNow()        { c.mu.Lock(); defer c.mu.Unlock(); c.t = time.Now() }
func (c *cacheClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestJobCacheFollowsTheLedger: the cache sees jobs any writer adds or moves on after its
// first read, keeps them oldest first, shares one snapshot while nothing changes, and
// re-reads everything once per full interval.
func TestJobCacheFollowsTheLedger(t *testing.T) {
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	write := func(id int64, entity string, a garrison.JobAction) {
		t.Helper()
		if _, err := st.UpsertJob(ctx, id, func(j *garrison.Job, _ bool) error {
			j.EntityID, j.Action, j.Labels = entity, a, []string{"x"}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // distinct creation times
	}
	clk := &cacheClock{t: time.Now()}
	c := newJobCache(st, clk.now, time.Minute)
	ids := func() []int64 {
		t.Helper()
		jobs, err := c.Queued(ctx, "e1")
		if err != nil {
			t.Fatal(err)
		}
		out := []int64{}
		for _, j := range jobs {
			out = append(out, j.ID)
		}
		return out
	}
	expect := func(step string, want ...int64) {
		t.Helper()
		if got := ids(); !slices.Equal(got, append([]int64{}, want...)) {
			t.Fatalf("%s: queued %v, want %v", step, got, want)
		}
	}
	write(3, "e1", garrison.JobQueued)
	write(1, "e1", garrison.JobQueued)
	write(9, "e2", garrison.JobQueued)
	expect("first read (full)", 3, 1)

	write(2, "e1", garrison.JobQueued)
	write(3, "e1", garrison.JobInProgress)
	clk.setNow()
	expect("changes", 1, 2)

	a, _ := c.Queued(ctx, "e1")
	b, _ := c.Queued(ctx, "e1")
	if &a[0] != &b[0] {
		t.Error("an unchanged queue was copied again")
	}

	// A write the delta window no longer reaches (the clock jumped) is found by the full
	// read once the interval has passed.
	write(5, "e1", garrison.JobQueued)
	clk.setNow()
	expect("delta", 1, 2, 5)
	if _, err := st.UpsertJob(ctx, 1, func(j *garrison.Job, _ bool) error { j.Action = garrison.JobCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	clk.add(time.Hour) // the delta window starts an hour after the write: only a full read sees it
	expect("full read", 2, 5)
}

// TestJobCachePut: a job this process locked is seen at once, and a stale row does not
// replace a newer one.
func TestJobCachePut(t *testing.T) {
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	j, err := st.UpsertJob(ctx, 7, func(j *garrison.Job, _ bool) error {
		j.EntityID, j.Action = "e1", garrison.JobQueued
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := newJobCache(st, time.Now, time.Hour)
	c.Put(j) // before the first read: ignored, the read has it
	if _, err := c.Queued(ctx, "e1"); err != nil {
		t.Fatal(err)
	}
	locked := j
	locked.LockedBy, locked.UpdatedAt = "instance-1", j.UpdatedAt.Add(time.Millisecond)
	c.Put(locked)
	older := j
	older.UpdatedAt = j.UpdatedAt.Add(-time.Second)
	c.Put(older)
	e := c.entity("e1")
	if got := e.queued[7].LockedBy; got != "instance-1" {
		t.Fatalf("locked by %q after Put, want instance-1", got)
	}
}

package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

func init() { fencingCases = append(fencingCases, fencingParallelCases...) }

// fencingParallelWrites is how many fenced writes run at once: a scale-up stores its
// runners in parallel.
const fencingParallelWrites = 6

// fencingParallelCases are fenced writes made at once under one claim, as a scale set
// stores the runners of one scale-up: none may fail (on PostgreSQL, two transactions
// that share-locked the claim's row and then lock it for update deadlock).
var fencingParallelCases = []testCase{
	{"Fencing/ScaleSetParallelCreates", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-par"))).get(t)
		sess, got, err := s.ClaimScaleSetSession(ctx, ss.ID, "a", time.Hour)
		must(t, err)
		if !got {
			t.Fatal("the scale set's claim was not granted")
		}
		fenced := store.WithFence(ctx, store.Fence{Claim: store.ScaleSetClaim(ss.ID), Token: sess.Token})
		createAtOnce(t, s, fenced, func(name string) garrison.Instance { return newScaleSetInstance(name, ss.ID) })
		wantEqual(t, "instances stored", len(ok(s.ListInstances(ctx, store.InstanceFilter{ScaleSetID: ss.ID})).get(t)), fencingParallelWrites)
	}},
	{"Fencing/PoolParallelCreates", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		fenced := store.WithFence(ctx, lease(t, s, store.PoolClaim(f.pool.ID), "a", time.Hour))
		createAtOnce(t, s, fenced, func(name string) garrison.Instance { return newInstance(name, f.pool.ID) })
		wantEqual(t, "instances stored", len(ok(s.ListInstances(ctx, store.InstanceFilter{PoolID: f.pool.ID})).get(t)), fencingParallelWrites)
	}},
}

// createAtOnce creates fencingParallelWrites instances made by newInst at once under ctx's
// fence; every create must succeed.
func createAtOnce(t *testing.T, s store.Store, ctx context.Context, newInst func(name string) garrison.Instance) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, fencingParallelWrites)
	for i := range fencingParallelWrites {
		wg.Go(func() { _, errs[i] = s.CreateInstance(ctx, newInst(fmt.Sprintf("garm-par-%d", i))) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("fenced create %d of %d at once: %v", i, fencingParallelWrites, err)
		}
	}
}

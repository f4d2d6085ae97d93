package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

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
		var wg sync.WaitGroup
		errs := make([]error, fencingParallelWrites)
		for i := range fencingParallelWrites {
			wg.Go(func() {
				_, errs[i] = s.CreateInstance(fenced, newScaleSetInstance(fmt.Sprintf("garm-par-%d", i), ss.ID))
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("fenced create %d of %d at once: %v", i, fencingParallelWrites, err)
			}
		}
		wantEqual(t, "instances stored", len(ok(s.ListInstances(ctx, store.InstanceFilter{ScaleSetID: ss.ID})).get(t)), fencingParallelWrites)
	}},
}

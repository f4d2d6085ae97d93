package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Bench runs the store benchmarks against stores made by open.
func Bench(b *testing.B, open func(b *testing.B) store.Store) {
	b.Run("UpdateInstance", func(b *testing.B) { benchUpdateInstance(b, open(b)) })
	b.Run("UpdateInstanceParallel", func(b *testing.B) { benchUpdateInstanceParallel(b, open(b), false) })
	b.Run("UpdateInstanceFenced", func(b *testing.B) { benchUpdateInstanceFenced(b, open(b)) })
	b.Run("UpdateInstanceFencedParallel", func(b *testing.B) { benchUpdateInstanceParallel(b, open(b), true) })
	b.Run("ListInstances10k", func(b *testing.B) { benchListInstances(b, open(b), 10_000) })
	b.Run("ListPoolInstancesOf10k", func(b *testing.B) { benchListPoolInstances(b, open(b), 10_000) })
	b.Run("ListPools1k", func(b *testing.B) { benchListPools(b, open(b), 1_000) })
	b.Run("JobWriteUnderLoad", func(b *testing.B) { benchJobUnderLoad(b, open(b), false) })
	b.Run("JobWriteUnderLoadUrgent", func(b *testing.B) { benchJobUnderLoad(b, open(b), true) })
}

// seed creates an endpoint, credentials and a repository, and returns the repository.
func seed(b *testing.B, s store.Store) garrison.Entity {
	ctx := b.Context()
	e, err := s.CreateEndpoint(ctx, newEndpoint("ghes.example.com", garrison.GitHub))
	benchMust(b, err)
	c, err := s.CreateCredentials(ctx, newCreds("creds", e.Name))
	benchMust(b, err)
	ent, err := s.CreateEntity(ctx, newRepo("acme", "app", c.ID))
	benchMust(b, err)
	return ent
}

// seedInstances creates n instances with JIT configs spread over pools of 100.
func seedInstances(b *testing.B, s store.Store, n int) {
	ctx := b.Context()
	ent := seed(b, s)
	var pool garrison.Pool
	for i := range n {
		if i%100 == 0 {
			p, err := s.CreatePool(ctx, newPool(ent.ID, "linux", fmt.Sprint("p", i/100)))
			benchMust(b, err)
			pool = p
		}
		in := newInstance(fmt.Sprintf("runner-%06d", i), pool.ID)
		in.JITConfig = map[string]string{".runner": "e30=", ".credentials": "e30="}
		in.Addresses = []garrison.Address{{Address: "10.0.0.1", Type: "private"}}
		_, err := s.CreateInstance(ctx, in)
		benchMust(b, err)
	}
}

func benchUpdateInstance(b *testing.B, s store.Store) {
	seedInstances(b, s, 1)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		_, err := s.UpdateInstance(ctx, "runner-000000", func(i *garrison.Instance) error {
			i.Heartbeat = time.Now()
			return nil
		})
		benchMust(b, err)
	}
}

// fenced returns ctx fenced by a lease on the first pool, as a reconciler holding it
// writes.
func fenced(b *testing.B, s store.Store) context.Context {
	pools, err := s.ListPools(b.Context(), store.PoolFilter{})
	benchMust(b, err)
	f, held, err := s.Lease(b.Context(), store.PoolClaim(pools[0].ID), "bench", time.Hour)
	benchMust(b, err)
	if !held {
		b.Fatal("lease not held")
	}
	return store.WithFence(b.Context(), f)
}

// benchUpdateInstanceFenced is benchUpdateInstance under a pool lease: the cost of the
// fencing check.
func benchUpdateInstanceFenced(b *testing.B, s store.Store) {
	seedInstances(b, s, 1)
	ctx := fenced(b, s)
	b.ReportAllocs()
	for b.Loop() {
		_, err := s.UpdateInstance(ctx, "runner-000000", func(i *garrison.Instance) error {
			i.Heartbeat = time.Now()
			return nil
		})
		benchMust(b, err)
	}
}

// benchUpdateInstanceParallel updates 64 instances of one pool at once; with fence, all
// under the pool's lease (they share its row).
func benchUpdateInstanceParallel(b *testing.B, s store.Store, fence bool) {
	const n = 64
	seedInstances(b, s, n)
	ctx := b.Context()
	if fence {
		ctx = fenced(b, s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		k := 0
		for pb.Next() {
			k++
			_, err := s.UpdateInstance(ctx, fmt.Sprintf("runner-%06d", k%n), func(i *garrison.Instance) error {
				i.Heartbeat = time.Now()
				return nil
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func benchListInstances(b *testing.B, s store.Store, n int) {
	seedInstances(b, s, n)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		list, err := s.ListInstances(ctx, store.InstanceFilter{})
		benchMust(b, err)
		if len(list) != n {
			b.Fatalf("listed %d instances, want %d", len(list), n)
		}
	}
}

// benchListPoolInstances reads one pool's 100 instances among n: what each pool's repair
// does (a scan of every instance would make a full repair O(pools × instances)).
func benchListPoolInstances(b *testing.B, s store.Store, n int) {
	seedInstances(b, s, n)
	ctx := b.Context()
	in, err := s.Instance(ctx, "runner-000000")
	benchMust(b, err)
	b.ReportAllocs()
	for b.Loop() {
		list, err := s.ListInstances(ctx, store.InstanceFilter{PoolID: in.PoolID})
		benchMust(b, err)
		if len(list) != 100 {
			b.Fatalf("listed %d instances, want 100", len(list))
		}
	}
}

func benchListPools(b *testing.B, s store.Store, n int) {
	ctx := b.Context()
	ent := seed(b, s)
	for i := range n {
		_, err := s.CreatePool(ctx, newPool(ent.ID, "linux", "x64", fmt.Sprint("pool-", i)))
		benchMust(b, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		list, err := s.ListPools(ctx, store.PoolFilter{})
		benchMust(b, err)
		if len(list) != n {
			b.Fatalf("listed %d pools, want %d", len(list), n)
		}
	}
}

func benchMust(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

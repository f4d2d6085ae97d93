package simprovider

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
)

// listNames lists poolID through p and returns the sorted instance names.
func listNames(t testing.TB, p *Provider, poolID string) []string {
	t.Helper()
	list, err := p.ListInstances(t.Context(), poolID)
	if err != nil {
		t.Fatalf("list %q: %v", poolID, err)
	}
	var names []string
	for _, in := range list {
		names = append(names, in.Name)
	}
	slices.Sort(names)
	return names
}

// create creates name in poolID through p.
func create(t testing.TB, p *Provider, name, poolID string) {
	t.Helper()
	if _, err := p.CreateInstance(t.Context(), provider.BootstrapInstance{Name: name, PoolID: poolID}); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
}

// exists reports whether path exists.
func exists(path string) bool { _, err := os.Lstat(path); return err == nil }

// sameDir is another Provider of controller on p's state dir.
func sameDir(t *testing.T, p *Provider, controller string) *Provider {
	t.Helper()
	q, err := NewWithConfig(p.cfg, sdk.Environment{ControllerID: controller})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestListInstancesByPool(t *testing.T) {
	p := newTestProvider(t, Behaviour{}, "c1")
	other := sameDir(t, p, "c2")
	pools := []string{"p0", "p1", "p2", "3f2b8c1e-0000-4000-8000-000000000001", "scale set-ent", "../escape", ""}
	want := map[string][]string{}
	for i := range 70 {
		pool := pools[i%len(pools)]
		name := "n" + strconv.Itoa(i)
		create(t, p, name, pool)
		create(t, other, "o"+strconv.Itoa(i), pool)
		want[pool] = append(want[pool], name)
	}
	for _, pool := range pools[:len(pools)-1] {
		got, w := listNames(t, p, pool), slices.Sorted(slices.Values(want[pool]))
		if !slices.Equal(got, w) {
			t.Errorf("pool %q: %v, want %v", pool, got, w)
		}
	}
	if got := listNames(t, p, ""); len(got) != 70 {
		t.Errorf("all pools: %d instances, want 70", len(got))
	}
	if got := listNames(t, p, "nope"); len(got) != 0 {
		t.Errorf("unknown pool: %v", got)
	}
	if exists(filepath.Join(p.cfg.StateDir, "escape")) || exists(filepath.Join(p.store.pools(), "scale set-ent")) {
		t.Error("an unsafe pool id named an index directory")
	}
}

func TestPoolIndexFollowsCreateDelete(t *testing.T) {
	ctx := t.Context()
	p := newTestProvider(t, Behaviour{}, "c1")
	marker := func(pool, id string) string { return filepath.Join(p.store.pools(), pool, id) }
	create(t, p, "n1", "p1")
	create(t, p, "n2", "p1")
	if !exists(marker("p1", "sim-n1")) || !exists(marker("p1", "sim-n2")) {
		t.Fatal("create added no marker")
	}
	if _, err := p.CreateInstance(ctx, provider.BootstrapInstance{Name: "n1", PoolID: "p2"}); !errors.Is(err, sdk.ErrDuplicate) {
		t.Fatalf("duplicate create: %v", err)
	}
	fail := provider.BootstrapInstance{Name: "f", PoolID: "p3", ExtraSpecs: []byte(`{"failure_rate":1}`)}
	if _, err := p.CreateInstance(ctx, fail); !errors.Is(err, ErrSimulatedFailure) {
		t.Fatalf("failing create: %v", err)
	}
	if exists(marker("p2", "sim-n1")) || exists(filepath.Join(p.store.pools(), "p3")) {
		t.Fatal("a rejected create left a marker")
	}
	if err := p.DeleteInstance(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	if exists(marker("p1", "sim-n1")) || !slices.Equal(listNames(t, p, "p1"), []string{"n2"}) {
		t.Fatal("delete left its marker")
	}
	if err := p.RemoveAllInstances(ctx); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(p.store.pools(), "p1")) {
		t.Fatal("RemoveAllInstances left the pool's index")
	}
}

// writeOldStateDir stores records the way the provider did before the pool index:
// records only.
func writeOldStateDir(t *testing.T, s *store, n, pools int) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for i := range n {
		pool, name := "p"+strconv.Itoa(i%pools), "n"+strconv.Itoa(i)
		r := Record{ProviderID: idPrefix + name, Name: name, ControllerID: "c1", PoolID: pool}
		if err := s.write(r); err != nil {
			t.Fatal(err)
		}
		want[pool] = append(want[pool], name)
	}
	return want
}

func TestOldStateDirIndexedOnFirstUse(t *testing.T) {
	p := newTestProvider(t, Behaviour{}, "c1")
	want := writeOldStateDir(t, p.store, 60, 6)
	var wg sync.WaitGroup
	for range 4 { // several first uses at once, as separate processes would
		q := sameDir(t, p, "c1")
		wg.Go(func() {
			for pool, w := range want {
				if got := listNames(t, q, pool); !slices.Equal(got, slices.Sorted(slices.Values(w))) {
					t.Errorf("pool %s: %v, want %v", pool, got, w)
				}
			}
		})
	}
	wg.Wait()
	if ok, err := p.store.indexed(); !ok || err != nil {
		t.Fatalf("index not marked complete: %v", err)
	}
	for pool, w := range want {
		for _, name := range w {
			if !exists(filepath.Join(p.store.pools(), pool, idPrefix+name)) {
				t.Errorf("no marker for %s in %s", name, pool)
			}
		}
	}
}

func TestStaleMarkersSkippedAndPruned(t *testing.T) {
	p := newTestProvider(t, Behaviour{}, "c1")
	create(t, p, "real", "p1")
	create(t, p, "moved", "p2")
	ghost, moved := filepath.Join(p.store.pools(), "p1", "sim-ghost"), filepath.Join(p.store.pools(), "p1", "sim-moved")
	for _, m := range []string{ghost, moved} { // as left by a crash between steps
		if err := os.WriteFile(m, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := listNames(t, p, "p1"); !slices.Equal(got, []string{"real"}) {
		t.Fatalf("p1: %v", got)
	}
	if exists(ghost) || exists(moved) || !exists(filepath.Join(p.store.pools(), "p2", "sim-moved")) {
		t.Fatal("stale markers not pruned, or a live one removed")
	}
}

func TestPruneKeepsMarkerOfCreateInProgress(t *testing.T) {
	p := newTestProvider(t, Behaviour{}, "c1")
	create(t, p, "first", "p1")
	listNames(t, p, "p1") // builds the index, so the listing below takes no lock before prune
	r := Record{ProviderID: "sim-slow", Name: "slow", ControllerID: "c1", PoolID: "p1"}
	listed := make(chan []string)
	err := p.store.withLock(func() error {
		if err := p.store.addMarker(r); err != nil {
			return err
		}
		go func() { listed <- listNames(t, p, "p1") }()
		time.Sleep(50 * time.Millisecond) // let the listing find the marker without its record
		return p.store.write(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	<-listed
	if !slices.Equal(listNames(t, p, "p1"), []string{"first", "slow"}) {
		t.Fatal("the listing pruned the marker of a create in progress")
	}
}

func TestConcurrentCreatesAcrossPools(t *testing.T) {
	p := newTestProvider(t, Behaviour{}, "c1")
	const workers, each, pools = 4, 30, 5
	var wg sync.WaitGroup
	for w := range workers {
		q := sameDir(t, p, "c1") // own lock descriptor, like another process
		wg.Go(func() {
			for i := range each {
				name, pool := "w"+strconv.Itoa(w)+"-"+strconv.Itoa(i), "p"+strconv.Itoa(i%pools)
				create(t, q, name, pool)
				if i%3 == 0 {
					if err := q.DeleteInstance(t.Context(), name); err != nil {
						t.Errorf("delete %s: %v", name, err)
					}
				}
				listNames(t, q, pool)
			}
		})
	}
	wg.Wait()
	for i := range pools {
		var want []string
		for w := range workers {
			for j := i; j < each; j += pools {
				if j%3 != 0 {
					want = append(want, "w"+strconv.Itoa(w)+"-"+strconv.Itoa(j))
				}
			}
		}
		slices.Sort(want)
		if got := listNames(t, p, "p"+strconv.Itoa(i)); !slices.Equal(got, want) {
			t.Errorf("pool p%d: %v, want %v", i, got, want)
		}
	}
}

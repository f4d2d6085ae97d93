package simprovider

import (
	"strconv"
	"testing"

	"github.com/garrison-ci/garrison/provider"
)

// BenchmarkListInstancesOnePool lists one pool of a state dir holding 5,000
// instances over 500 pools, as garrison does once per pool after a restart.
func BenchmarkListInstancesOnePool(b *testing.B) {
	const instances, pools = 5000, 500
	p := newTestProvider(b, Behaviour{}, "c1")
	for i := range instances {
		bi := provider.BootstrapInstance{Name: "n" + strconv.Itoa(i), PoolID: "pool-" + strconv.Itoa(i%pools)}
		if _, err := p.CreateInstance(b.Context(), bi); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := p.ListInstances(b.Context(), "pool-0"); err != nil { // first use may build an index
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		list, err := p.ListInstances(b.Context(), "pool-"+strconv.Itoa(i%pools))
		if err != nil || len(list) != instances/pools {
			b.Fatalf("list: %d instances, %v", len(list), err)
		}
		i++
	}
}

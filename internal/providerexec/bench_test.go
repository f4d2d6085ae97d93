package providerexec

import (
	"testing"

	"github.com/garrison-ci/garrison/provider"
)

// BenchmarkCallGetInstance measures the overhead of one provider call:
// environment, fork/exec, pipes, wait and parsing a ProviderInstance.
func BenchmarkCallGetInstance(b *testing.B) {
	p, _ := fakeProvider(b, "env", nil)
	tg := provider.Target{PoolID: "pool", InstanceID: "i-1"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.GetInstance(b.Context(), tg); err != nil {
			b.Fatal(err)
		}
	}
}

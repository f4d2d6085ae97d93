package reconcile

import "testing"

// BenchmarkReconcilePass measures one steady-state reconcile of a pool with ten running
// runners against SQLite, the sim provider and the forge simulator.
func BenchmarkReconcilePass(b *testing.B) {
	h := newHarness(b)
	p := h.pool(10, 10, "")
	r := h.reconciler(h.prov)
	h.settle(r, p.ID)
	for b.Loop() {
		if _, err := r.reconcile(b.Context(), p.ID); err != nil {
			b.Fatal(err)
		}
	}
}

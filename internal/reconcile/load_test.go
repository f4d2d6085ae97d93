package reconcile

import (
	"testing"
)

// A pool's reconcile reads the pool from its entity's list once the entity is known; a
// pool deleted after that is found gone (not an error), and the reconciler forgets it.
func TestReconcileOfDeletedPool(t *testing.T) {
	h := newHarness(t)
	p := h.pool(0, 2, "")
	r := h.reconciler(h.prov)
	h.pass(r, p.ID)
	if id, ok := r.poolEntity(p.ID); !ok || id != p.EntityID {
		t.Fatalf("entity of the pool after a pass: %q, %v; want %q", id, ok, p.EntityID)
	}
	if err := h.store.DeletePool(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	res, err := r.reconcile(t.Context(), p.ID)
	if err != nil || res.RequeueAfter != 0 {
		t.Fatalf("reconcile of a deleted pool: %+v, %v; want nothing to do", res, err)
	}
	if _, ok := r.poolEntity(p.ID); ok {
		t.Fatal("the reconciler still remembers the deleted pool's entity")
	}
	other := h.pool(0, 2, "")
	h.pass(r, other.ID) // a pool made after still reconciles
}

package reconcile

import (
	"errors"
	"sync"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/workqueue"
)

// TestPoolStatusReportsConfigurationErrors checks that a pool naming an unknown provider
// stops with a terminal error that PoolStatus reports, and that a healthy pass reports nil.
func TestPoolStatusReportsConfigurationErrors(t *testing.T) {
	h := newHarness(t)
	var (
		mu  sync.Mutex
		got = map[string]error{}
	)
	r, err := New(Options{
		Store: h.store, Providers: ProviderMap{"sim": {Provider: h.newProvider()}}, Forges: oneForge{h.forge},
		Tokens: h.tokens, InjectTemplate: injectTemplate, Now: h.clock,
		PoolStatus: func(p garrison.Pool, err error) {
			mu.Lock()
			got[p.ID] = err
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	good := h.pool(0, 1, "")
	bad := h.pool(0, 1, "")
	if _, err := h.store.UpdatePool(t.Context(), bad.ID, func(p *garrison.Pool) error {
		p.ProviderName = "nonexistent"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.pass(r, good.ID)
	_, err = r.reconcile(t.Context(), bad.ID)
	if !workqueue.IsTerminal(err) || !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("unknown provider: %v, want a terminal not-found error", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if e, ok := got[good.ID]; !ok || e != nil {
		t.Errorf("healthy pool reported %v (reported: %v)", e, ok)
	}
	if e := got[bad.ID]; !errors.Is(e, garrison.ErrNotFound) {
		t.Errorf("broken pool reported %v", e)
	}
}

package httpapi_test

import (
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TestPoolHealthRoute: GET /pools/{id}/health answers the pool's state (stopped here: no
// reconciler reports to this server), 404 for an unknown pool and 401 without a token.
func TestPoolHealthRoute(t *testing.T) {
	f := newFixture(t)
	var got apiv1.PoolHealth
	f.h.expect(f.h.call("GET", api("/pools/"+f.poolID+"/health"), f.tok, nil), 200, &got)
	if got.PoolID != f.poolID || got.State != apiv1.PoolStopped || got.Reason == "" {
		t.Errorf("health = %+v, want stopped with a reason", got)
	}
	f.h.expect(f.h.call("GET", api("/pools/7c0d6a5e-0000-4000-8000-000000000000/health"), f.tok, nil), 404, nil)
	f.h.expect(f.h.call("GET", api("/pools/"+f.poolID+"/health"), "", nil), 401, nil)
}

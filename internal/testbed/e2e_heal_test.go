package testbed_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestE2EPoolHealsAfterProviderOutage: every create of a pool fails (a provider outage)
// while jobs are queued. The instances that use up their create attempts are retired —
// kept as history (status deleted, with the provider's fault), gone from the provider and
// the forge, no longer holding capacity — and the pool reports itself degraded with the
// provider's error, on GET /pools/{id}/health and in the repository's
// pool_manager_status. Once the provider works again the pool refills by itself: every
// job is served, the pool is back at min idle and healthy, nothing is left in error. No
// admin action is taken beyond the outage itself (the pool's extra specs).
func TestE2EPoolHealsAfterProviderOutage(t *testing.T) {
	e := newE2E(t, 300*time.Millisecond, func(o *testbed.Options) {
		o.Reconcile = map[string]time.Duration{"retry_backoff": 500 * time.Millisecond, "max_retry_backoff": 2 * time.Second}
	})
	pool := e.addPool(t, e2eTags, 2, 3, withExtraSpecs(failingSpecs))
	jobs := e.queueJobs(t, 3, 0, e2eTags...)

	eventually(t, "a retired instance kept as history", func() (bool, string) {
		for _, in := range e.poolInstances(t, pool.ID) {
			if in.Status == "deleted" && strings.Contains(string(in.ProviderFault), simulatedFault) {
				return true, ""
			}
		}
		return false, describe(e.poolInstances(t, pool.ID))
	})
	eventually(t, "the pool degraded with the provider's error", func() (bool, string) {
		h, err := e.API.PoolHealth(t.Context(), pool.ID)
		return err == nil && h.State == apiv1.PoolDegraded && strings.Contains(h.Reason, "provider failing") &&
			strings.Contains(h.Reason, simulatedFault), fmt.Sprintf("%+v %v", h, err)
	})
	e.waitStatus(t, "running, naming the degraded pool", func(s apiv1.PoolManagerStatus) bool {
		return s.IsRunning && strings.Contains(s.FailureReason, "degraded")
	})
	for _, in := range e.poolInstances(t, pool.ID) {
		if in.Status == "deleted" && (e.providerRecords(t)[in.Name] || e.forgeRunners()[in.Name]) {
			t.Errorf("retired %s is still in the provider or the forge", in.Name)
		}
	}

	// The provider recovers.
	if _, err := e.API.UpdatePool(t.Context(), pool.ID, apiv1.UpdatePoolParams{ExtraSpecs: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	eventuallyWithin(t, 2*time.Minute, "every queued job served", func() (bool, string) {
		n := e.CompletedJobs(jobs)
		return n == len(jobs), fmt.Sprintf("%d of %d jobs done; %s", n, len(jobs), describe(e.poolInstances(t, pool.ID)))
	})
	eventually(t, "the pool back at min idle, healthy, nothing in error", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		for _, in := range insts {
			if in.Status == "error" {
				return false, describe(insts)
			}
		}
		h, err := e.API.PoolHealth(t.Context(), pool.ID)
		return len(idleNames(insts)) == 2 && err == nil && h.State == apiv1.PoolHealthy, fmt.Sprintf("%s %+v %v", describe(insts), h, err)
	})
	e.waitStatus(t, "running with no failure", func(s apiv1.PoolManagerStatus) bool { return s.IsRunning && s.FailureReason == "" })
}

package server

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/reconcile"
)

func TestPoolManagersStatus(t *testing.T) {
	p := newPoolManagers()
	if ok, why := p.Status("e1"); ok || why == "" {
		t.Errorf("before the reconciler runs: %v %q", ok, why)
	}
	p.running.Store(true)
	if ok, why := p.Status("e1"); !ok || why != "" {
		t.Errorf("running: %v %q", ok, why)
	}
	p.SetFailed("e1", "forge refused the credentials")
	if ok, why := p.Status("e1"); ok || why != "forge refused the credentials" {
		t.Errorf("failed: %v %q", ok, why)
	}
	if ok, _ := p.Status("e2"); !ok {
		t.Error("a failure of one entity leaked to another")
	}
	p.Clear("e1")
	if ok, _ := p.Status("e1"); !ok {
		t.Error("cleared failure still reported")
	}
	broken := garrison.Pool{ID: "p1", EntityID: "e1"}
	p.PoolStatus(broken, errors.New("no provider lxd"))
	p.PoolStatus(garrison.Pool{ID: "p2", EntityID: "e1"}, nil)
	if ok, why := p.Status("e1"); ok || why != "pool p1: no provider lxd" {
		t.Errorf("a healthy pool hid a broken one: %v %q", ok, why)
	}
	p.PoolStatus(broken, nil)
	if ok, why := p.Status("e1"); !ok {
		t.Errorf("repaired pool still reported: %q", why)
	}
}

func TestPoolHealth(t *testing.T) {
	p := newPoolManagers()
	p.running.Store(true)
	pool := garrison.Pool{ID: "p1", EntityID: "e1", Enabled: true}
	until := time.Date(2026, 8, 6, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		err       error
		entity    string // entity-wide failure
		state     string
		reason    string // substring
		running   bool
		entityWhy string // substring of failure_reason
	}{
		{name: "healthy", state: apiv1.PoolHealthy, running: true},
		{name: "provider failing", err: &reconcile.ProviderFailingError{Failures: 3, Until: until, Fault: "boom"},
			state: apiv1.PoolDegraded, reason: "provider failing (3 failed runners", running: true, entityWhy: "pool p1 degraded: provider failing"},
		{name: "rate limited", err: &reconcile.RateLimitedError{Until: until},
			state: apiv1.PoolDegraded, reason: "rate-limited by the forge until 2026-08-06T12:00:00Z", running: true, entityWhy: "rate-limited"},
		{name: "no runner download", err: &reconcile.NoDownloadError{OS: "linux", Arch: "arm64", Source: "the forge", Detail: "none"},
			state: apiv1.PoolDegraded, reason: "no usable runner download for linux/arm64", running: true, entityWhy: "no usable runner download"},
		{name: "forge unauthorised", entity: "the forge refused the credentials",
			state: apiv1.PoolDegraded, reason: "forge unauthorised: the forge refused the credentials", running: false, entityWhy: "refused"},
		{name: "configuration error stops the pool", err: fmt.Errorf("unknown provider: %w", garrison.ErrNotFound),
			state: apiv1.PoolStopped, reason: "unknown provider", running: false, entityWhy: "pool p1: unknown provider"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.PoolStatus(pool, tc.err)
			if tc.entity != "" {
				p.SetFailed("e1", tc.entity)
				defer p.Clear("e1")
			}
			state, reason := p.PoolHealth(pool)
			if state != tc.state || !strings.Contains(reason, tc.reason) {
				t.Errorf("pool health = %s %q, want %s %q", state, reason, tc.state, tc.reason)
			}
			running, why := p.Status("e1")
			if running != tc.running || !strings.Contains(why, tc.entityWhy) {
				t.Errorf("pool_manager_status = %v %q, want %v %q", running, why, tc.running, tc.entityWhy)
			}
		})
	}
	p.PoolStatus(pool, nil)
	disabled := pool
	disabled.Enabled = false
	if state, reason := p.PoolHealth(disabled); state != apiv1.PoolStopped || reason != "the pool is disabled" {
		t.Errorf("disabled pool: %s %q", state, reason)
	}
	p.running.Store(false)
	if state, _ := p.PoolHealth(pool); state != apiv1.PoolStopped {
		t.Errorf("pool of a stopped reconciler: %s", state)
	}
}

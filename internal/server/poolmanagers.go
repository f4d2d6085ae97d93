package server

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// poolManagers reports each entity's pool management status for the REST API, and each
// pool's health. An entity is running while the reconciler runs, unless something
// stopped it: one of its pools cannot be reconciled (unknown provider, ...), or the forge
// refused its credentials or does not know the entity (forges.Hub.observe). A pool is
// degraded, still running, while it heals by itself: its runners keep failing, the forge
// rate-limits it, no runner download fits it (errors with a Degraded method). A pool's
// state clears when it reconciles fine again; the entity's when a forge call for it
// succeeds again.
type poolManagers struct {
	running atomic.Bool

	mu     sync.Mutex                      // guards failed and pools
	failed map[string]map[string]string    // entity id -> pool id ("" for the entity) -> why it stopped
	pools  map[string]map[string]poolState // entity id -> pool id -> its state, unless healthy
}

// poolState is a pool's state other than healthy.
type poolState struct {
	state  string // apiv1.PoolDegraded or apiv1.PoolStopped
	reason string
}

func newPoolManagers() *poolManagers {
	return &poolManagers{failed: map[string]map[string]string{}, pools: map[string]map[string]poolState{}}
}

// Status reports whether the entity's pools are managed, and why not or what degrades
// them: GARM's pool_manager_status.
func (p *poolManagers) Status(entityID string) (bool, string) {
	p.mu.Lock()
	var stopped, degraded []string
	for _, r := range p.failed[entityID] {
		stopped = append(stopped, r)
	}
	for id, st := range p.pools[entityID] {
		if st.state == apiv1.PoolDegraded {
			degraded = append(degraded, fmt.Sprintf("pool %s %s", id, st.reason))
		}
	}
	p.mu.Unlock()
	sort.Strings(stopped)
	sort.Strings(degraded)
	reasons := strings.Join(append(stopped, degraded...), "; ")
	if len(stopped) > 0 {
		return false, reasons
	}
	if !p.running.Load() {
		return false, "the pool reconciler is not running"
	}
	return true, reasons
}

// PoolHealth reports a pool's state — healthy, degraded or stopped — and why.
func (p *poolManagers) PoolHealth(pool garrison.Pool) (state, reason string) {
	if !pool.Enabled {
		return apiv1.PoolStopped, "the pool is disabled"
	}
	if !p.running.Load() {
		return apiv1.PoolStopped, "the pool reconciler is not running"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.pools[pool.EntityID][pool.ID]; ok {
		return st.state, st.reason
	}
	if r := p.failed[pool.EntityID][""]; r != "" {
		return apiv1.PoolDegraded, "forge unauthorised: " + r
	}
	return apiv1.PoolHealthy, ""
}

// SetFailed records why the entity's pools cannot be managed.
func (p *poolManagers) SetFailed(entityID, reason string) { p.set(entityID, "", reason) }

// Clear forgets the entity-wide failure.
func (p *poolManagers) Clear(entityID string) { p.set(entityID, "", "") }

// degraded is implemented by the errors that degrade a pool without stopping it.
type degraded interface{ Degraded() bool }

// PoolStatus records the outcome of a pool's reconcile (the reconciler's PoolStatus hook).
func (p *poolManagers) PoolStatus(pool garrison.Pool, err error) {
	var d degraded
	switch {
	case err == nil:
		p.set(pool.EntityID, pool.ID, "")
		p.setPool(pool, poolState{})
	case errors.As(err, &d) && d.Degraded():
		p.set(pool.EntityID, pool.ID, "")
		p.setPool(pool, poolState{state: apiv1.PoolDegraded, reason: err.Error()})
	default:
		p.set(pool.EntityID, pool.ID, fmt.Sprintf("pool %s: %s", pool.ID, err))
		p.setPool(pool, poolState{state: apiv1.PoolStopped, reason: err.Error()})
	}
}

// setPool records a pool's state (the zero state: healthy).
func (p *poolManagers) setPool(pool garrison.Pool, st poolState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.pools[pool.EntityID]
	if st.state == "" {
		delete(m, pool.ID)
		if len(m) == 0 {
			delete(p.pools, pool.EntityID)
		}
		return
	}
	if m == nil {
		m = map[string]poolState{}
		p.pools[pool.EntityID] = m
	}
	m[pool.ID] = st
}

// set records (or with reason "" clears) a failure of the entity or one of its pools.
func (p *poolManagers) set(entityID, poolID, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.failed[entityID]
	if reason == "" {
		delete(m, poolID)
		if len(m) == 0 {
			delete(p.failed, entityID)
		}
		return
	}
	if m == nil {
		m = map[string]string{}
		p.failed[entityID] = m
	}
	m[poolID] = reason
}

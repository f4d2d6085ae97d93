package server

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/garrison-ci/garrison"
)

// poolManagers reports each entity's pool management status for the REST API: running
// while the reconciler runs, unless something failed for the entity: one of its pools
// cannot be reconciled (unknown provider, no usable runner download, ...), or the forge
// refused its credentials or does not know the entity (forgeHub.observe). A pool's
// failure clears when it reconciles again; the entity's when a forge call for it
// succeeds again.
type poolManagers struct {
	running atomic.Bool

	mu     sync.Mutex                   // guards failed
	failed map[string]map[string]string // entity id -> pool id ("" for the entity) -> reason
}

func newPoolManagers() *poolManagers {
	return &poolManagers{failed: map[string]map[string]string{}}
}

// Status reports whether the entity's pools are managed, and why not.
func (p *poolManagers) Status(entityID string) (bool, string) {
	p.mu.Lock()
	reasons := make([]string, 0, len(p.failed[entityID]))
	for _, r := range p.failed[entityID] {
		reasons = append(reasons, r)
	}
	p.mu.Unlock()
	if len(reasons) > 0 {
		sort.Strings(reasons)
		return false, strings.Join(reasons, "; ")
	}
	if !p.running.Load() {
		return false, "the pool reconciler is not running"
	}
	return true, ""
}

// SetFailed records why the entity's pools cannot be managed.
func (p *poolManagers) SetFailed(entityID, reason string) { p.set(entityID, "", reason) }

// Clear forgets the entity-wide failure.
func (p *poolManagers) Clear(entityID string) { p.set(entityID, "", "") }

// PoolStatus records the outcome of a pool's reconcile (the reconciler's PoolStatus hook).
func (p *poolManagers) PoolStatus(pool garrison.Pool, err error) {
	reason := ""
	if err != nil {
		reason = fmt.Sprintf("pool %s: %s", pool.ID, err)
	}
	p.set(pool.EntityID, pool.ID, reason)
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

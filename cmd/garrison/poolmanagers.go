package main

import (
	"sync"
	"sync/atomic"
)

// poolManagers reports each entity's pool management status for the REST API: running
// while the reconciler runs, unless something recorded a failure for the entity (e.g. the
// forge refused its credentials), until the next success clears it.
type poolManagers struct {
	running atomic.Bool

	mu     sync.Mutex // guards failed
	failed map[string]string
}

func newPoolManagers() *poolManagers { return &poolManagers{failed: map[string]string{}} }

// Status reports whether the entity's pools are managed, and why not.
func (p *poolManagers) Status(entityID string) (bool, string) {
	p.mu.Lock()
	reason, failed := p.failed[entityID]
	p.mu.Unlock()
	if failed {
		return false, reason
	}
	if !p.running.Load() {
		return false, "the pool reconciler is not running"
	}
	return true, ""
}

// SetFailed records why the entity's pools cannot be managed.
func (p *poolManagers) SetFailed(entityID, reason string) {
	p.mu.Lock()
	p.failed[entityID] = reason
	p.mu.Unlock()
}

// Clear forgets a recorded failure.
func (p *poolManagers) Clear(entityID string) {
	p.mu.Lock()
	delete(p.failed, entityID)
	p.mu.Unlock()
}

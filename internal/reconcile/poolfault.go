package reconcile

import (
	"errors"

	"github.com/garrison-ci/garrison"
)

// notePoolFault records what the last create preparation of a pool said about the pool
// as a whole: a NoDownloadError makes every create of the pool fail, so it is shown on
// the pool (Options.PoolStatus) until a preparation succeeds. Other outcomes concern one
// instance and leave the record as it is.
func (r *Reconciler) notePoolFault(p garrison.Pool, err error) {
	var nd *NoDownloadError
	if err != nil && !errors.As(err, &nd) {
		return
	}
	r.mu.Lock()
	_, had := r.poolFaults[p.ID]
	if err != nil {
		r.poolFaults[p.ID] = err
	} else {
		delete(r.poolFaults, p.ID)
	}
	r.mu.Unlock()
	if err != nil || had {
		r.reportPool(p, err)
	}
}

// poolFault is the fault recorded for a pool by notePoolFault, or nil.
func (r *Reconciler) poolFault(poolID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.poolFaults[poolID]
}

// forgetPool drops what the reconciler remembers of a deleted pool.
func (r *Reconciler) forgetPool(poolID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.poolFaults, poolID)
	delete(r.backoffs, poolID)
	delete(r.lastUp, poolID)
	delete(r.rateLimits, poolID)
	delete(r.groupIgnored, poolID)
	delete(r.hints, poolID)
	delete(r.poolEntities, poolID)
}

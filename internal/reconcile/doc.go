// Package reconcile is garrison's pool reconciler: jobs in, fresh runners out, nothing
// stuck, nothing leaked.
//
// Every trigger (a webhook, an API write, an instance callback, the one resync timer)
// only enqueues pool keys with Reconciler.Notify. The pools controller takes a pool key
// (never two at once for one key) and reconciles it level-triggered: it reads the pool,
// its entity and sibling pools, their instances and the entity's queued jobs from the
// store, hands them to the pure planner (package plan), and carries out the store steps
// of the plan: new pending_create rows, job locks, instances marked for deletion. Every
// instance the plan wants an operation on goes to the instances controller, keyed by
// instance name, whose handler re-reads the instance and its pool and performs the next
// step for the instance's status (provision, resolve, retry, delete), recording every
// transition as an instance status message, and tells the pool when it is done. Both
// controllers are handlers on a work queue (internal/workqueue): per-key exclusivity,
// backoff, panic recovery.
//
// On start and every few minutes per pool, a three-way repair compares the store, the
// provider (ListInstances of the pool) and the forge (runner list) and removes what leaked:
// provider instances without a record, records whose instance is gone, and our runners
// registered in the forge without an instance.
//
// The reconciler keeps nothing in memory that matters: after a restart, instances left in
// pending_create, creating or deleting are picked up again from the store.
package reconcile

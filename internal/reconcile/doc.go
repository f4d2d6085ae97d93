// Package reconcile is garrison's pool reconciler: jobs in, fresh runners out, nothing
// stuck, nothing leaked.
//
// It is a set of controllers, one per kind of work, each a handler on its own work queue
// (internal/workqueue: per-key exclusivity, de-duplication, backoff, panic recovery,
// requeue-after, controller-runtime's metrics, a reconcile id in every log line):
//
//   - pools (key: pool id). Every trigger (a webhook, an API write, an instance callback,
//     the resync) only enqueues pool keys with Reconciler.Notify. The handler reads the
//     pool, its entity and sibling pools, their instances and the entity's queued jobs
//     from the store, hands them to the pure planner (package plan), and carries out the
//     store steps of the plan: new pending_create rows, job locks, instances marked for
//     deletion, and why each waiting job waits (written to the job ledger when it
//     changes). Every instance the plan wants an operation on goes to the instances
//     controller. It calls no provider and no forge.
//   - instances (key: instance name). The handler re-reads the instance, its pool, entity
//     and controller, and performs the next step for the instance's status: provision a
//     pending_create one (unless its pool was disabled meanwhile), resolve a creating one
//     left by a process that died, retry a failed create when due, delete one marked for
//     deletion. Every transition is recorded as an instance status message; a step that
//     changed something tells the pool.
//   - repairs (key: pool id), on start and every RepairInterval: the three-way repair
//     compares the store, the provider (ListInstances of the pool) and the forge (runner
//     list) and removes what leaked: provider instances without a record, records whose
//     instance is gone, and our runners registered in the forge without an instance.
//   - sweeps (key: entity id), with Options.Sweep: the missed-webhook sweep of each
//     entity every SweepInterval.
//   - resync (one key), every ResyncInterval: one read of the whole store plans every
//     pool (only pools with work go to the pools controller), schedules the repairs and
//     sweeps of new pools and entities, and prunes jobs queued past JobTTL.
//
// # Isolation
//
// Calls are budgeted per provider and per forge credential (ProviderConcurrency,
// CredentialConcurrency). A step takes a slot of its provider's budget for its duration
// and of its credentials' only around its forge calls; a step that finds a budget full
// does not wait: its key waits for a slot, holding no worker, and a released slot hands
// it back to its queue. A forge whose rate limit is spent answers a
// *garrison.RateLimitError at once; the key is held until the reset, holding nothing. A
// provider that hangs or a credential out of budget thus slows only its own pools.
//
// The reconciler keeps nothing in memory that matters: after a restart, instances left in
// pending_create, creating or deleting are picked up again from the store, and why a job
// waits is in the ledger. With Options.Leases (several replicas on one PostgreSQL) pools,
// instance steps, repairs and sweeps are claimed through leases.
package reconcile

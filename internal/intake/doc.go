// Package intake is garrison's webhook receiver (rest-api.md §4, rules W-1..W-10 and R-8):
// an http.Handler the REST server mounts at /webhooks, /webhooks/ and
// /webhooks/{controllerID}. It records workflow_job deliveries in the durable job ledger
// (store.Jobs), applies their side effects to our instances, and enqueues the keys of the
// pools concerned through an injected Notify. It never calls a provider or the forge, so
// it answers within milliseconds.
//
// # Order of checks
//
//  1. A controller id in the path that is not ours: 200, empty, nothing read (W-2).
//  2. Events other than workflow_job (ping included): 200, empty (W-3).
//  3. The body is read in full, up to Options.MaxBodyBytes (413 beyond).
//  4. The body is parsed in full with internal/forge/webhook, but nothing in it is acted
//     upon before the signature is verified: only its routing fields (html_url, the
//     repository, organization or enterprise names) are used to find the endpoint and the
//     entity, whose webhook secret is needed to check the signature. A body that cannot be
//     routed (empty, not JSON, missing fields, a job id of 0 or below, an unknown target
//     type) is answered 400 before the signature check: there is no secret to check it
//     with, and the answer reveals nothing the caller did not send.
//  5. Endpoint: scheme://host of workflow_job.html_url against the base URLs of the
//     endpoints of the delivery's forge type; no match is 200, counted as owner_unknown
//     (W-6). A base URL with a path (a Gitea served under a sub-path) also matches when
//     html_url starts with it: this only adds matches where the spec's rule finds none.
//  6. Entity: looked up case-insensitively across every matching endpoint; none is 200,
//     counted as entity_unknown (W-7). When several entities match (two endpoints sharing
//     a base URL), the one whose secret verifies the signature wins.
//  7. Signature (W-8), constant time over the raw bytes. An entity without a webhook
//     secret cannot authenticate anything: its deliveries are refused with 401.
//  8. A delivery id (X-GitHub-Delivery) already processed successfully: 200 without side
//     effects. The memory of delivery ids is a bounded in-process LRU; that is enough
//     because the ledger's forward-only rule makes a replay that slips past it harmless.
//  9. The job rules (W-9) and side effects (W-10).
//
// # Cache
//
// What every delivery reads before its job is written (the controller id, the endpoints
// of the forge type, the entity with its webhook secret, the entity's pools) is kept for
// Options.CacheTTL (cache.go; the server uses DefaultCacheTTL, 1 s; 0 disables it), so a
// steady stream of deliveries costs one ledger write each. Cached data only ever accept:
// a path naming another controller, no matching endpoint or entity, a signature that does
// not verify, or a queued job no cached pool can serve is decided again on a fresh read,
// and refused only if that refuses too. A pool, entity, endpoint or secret is therefore
// honoured by the next delivery; a removal or a replaced secret takes up to the TTL to
// refuse deliveries. Entities are only cached when they exist, and expired entries are
// swept, so the cache is bounded by what the store holds.
//
// # Ledger and side effects
//
// A runner is ours for a delivery only when it is an instance in a pool (enabled or not)
// of the entity whose secret verified the delivery. A delivery naming an instance of
// another entity's pool (a repository's runner seen through its organization's hook, or a
// forged delivery) is answered 200, counted as foreign_runner, and changes nothing: no job
// is recorded or advanced, no instance touched, no pool enqueued. The owning entity gets
// the same event through its own hook. Likewise a known job the ledger records for another
// entity is left alone (200, foreign_job) unless the delivery names a runner of this entity:
// one entity's webhook secret never advances another entity's jobs.
//
// A job is written with store.Jobs.RecordJob, atomically: a new job id is recorded when
// its status is queued and an enabled pool of the entity has all of its labels, or when
// its runner is ours; a known job is updated with garrison.Job.Advance (action only
// forward, else 400). The runner that took the job (id and name) and the forge's
// timestamps are kept; a missing start or completion time is filled from the clock. A new
// job no pool can serve is answered 422 "job <id> should not be recorded" (W-9), but a
// queued one is recorded all the same, with the reason (garrison.UnservedReason), so that
// the job list says why it waits; when another runner takes it (in_progress or completed
// on a runner not ours, no pool for it, no runner made for it), it is dropped from the
// ledger and answered 422 as GARM, which never recorded it, would. Any other new job no
// runner of ours runs is answered 422 and not recorded.
//
// in_progress on one of our runners forces its runner status to active (unless the runner
// is already terminated or the instance is being deleted) and binds the job to it.
// completed marks the runner terminated and the instance pending_delete. An instance still
// in creating cannot move to pending_delete (instance-api.md §9.1); it keeps its status
// and only its runner status becomes terminated: that is the remembered deletion, which
// the lifecycle must honour by deleting an instance whose runner is terminated as soon as
// its create returns. The job and its runner's instance are one write (RecordJob), with
// the instance's status message; a delivery that changes nothing on the instance does not
// write it. A delivery waits at the store's writer at most once.
//
// Then Notify receives the ids of the entity's enabled pools whose tags match the job's
// labels, plus the pool of the runner's instance.
//
// # Results
//
// Every delivery increments garrison_webhook_deliveries_total{result} (see the Result
// constants) and is timed by garrison_webhook_intake_duration_seconds. Unknown owners, bad
// signatures, malformed payloads and refused jobs are logged, at most once per
// Options.LogEvery for each result; logs never carry the payload, the secret or the
// signature.
package intake

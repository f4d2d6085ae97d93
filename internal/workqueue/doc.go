// Package workqueue is a keyed, de-duplicating work queue with per-key exclusivity.
//
// Producers Add (or AddAfter) string keys; a bounded set of workers hands each key to one
// Handler. A key is never processed by two workers at once: adding a key that is being
// processed marks it dirty, and it is processed once more after the running call returns.
// A key added many times before a worker takes it is processed once.
//
// A Handler that fails is retried after a jittered exponential backoff kept per key and
// reset by the next success; a Terminal error is not retried but reported; a panic is
// recovered into an error (logged with the key and the stack) and retried like any error.
// A Handler may ask for the key to come back later with Result.RequeueAfter.
//
// Run starts the workers and returns once its context is done and every running Handler
// has returned: shutdown stops handing out keys and lets running calls finish (they see
// the cancelled context).
package workqueue

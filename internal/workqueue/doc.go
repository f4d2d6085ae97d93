// Package workqueue is a keyed, de-duplicating work queue with per-key exclusivity.
//
// Producers Add (or AddAfter) string keys; a bounded set of workers hands each key to one
// Handler. A key is never processed by two workers at once: adding a key that is being
// processed marks it dirty, and it is processed once more after the running call returns.
// A key added many times before a worker takes it is processed once.
//
// A Handler that fails is retried after a jittered exponential backoff kept per key and
// reset by the next success; adding the key meanwhile does not cut the backoff short (it
// runs when the backoff ends). A Terminal error is not retried but reported; a panic is
// recovered into an error (logged with the key and the stack) and retried like any error.
// A Handler may ask for the key to come back later with Result.RequeueAfter. Has tells
// whether the queue holds a key in any of these forms.
//
// With Options.Metrics every queue reports controller-runtime's metric families under its
// Name: workqueue_depth, _adds_total, _retries_total, _queue_duration_seconds,
// _work_duration_seconds, _unfinished_work_seconds and _longest_running_processor_seconds
// (label name), and controller_runtime_reconcile_total (result success, error, requeue,
// requeue_after), _reconcile_errors_total, _reconcile_panics_total,
// _reconcile_time_seconds, _active_workers and _max_concurrent_reconciles (label
// controller).
//
// Run starts the workers and returns once its context is done and every running Handler
// has returned: shutdown stops handing out keys and lets running calls finish (they see
// the cancelled context). ProcessReady steps a queue by hand instead, in the caller's
// goroutine.
package workqueue

package reconcile

import (
	"errors"
	"time"

	"github.com/garrison-ci/garrison"
)

// A runner marked for deletion may have taken a job meanwhile (the forge hands jobs out
// between garrison's look and its delete): the forge then refuses to remove it as busy.
// Such a deletion waits for the job, asking the forge again after a growing interval
// (Policy.RetryBackoff doubling up to MaxRetryBackoff, so a long job costs a few calls),
// and not as a failure: a failure's backoff holds the key against every Add, so when
// the job ended the deletion still sat out the rest of its backoff, up to minutes. Here
// the wait is the handler's, and a look at the instance after its runner finished the
// job (ranItsJob: the forge removed the runner itself) deletes it at once.

// busyWait is a deletion waiting for its runner's job: since when it may ask the forge
// again, and how many times the forge refused.
type busyWait struct {
	until   time.Time
	refusal int
}

// refusedBusy reports whether a deregistration failed because the forge believes the
// runner busy.
func refusedBusy(err error) bool {
	return errors.Is(err, garrison.ErrUnprocessable) || errors.Is(err, garrison.ErrConflict)
}

// busyWaitLeft is how long the deletion of in must still wait before it asks the forge
// again (0: go ahead). A runner that finished its job does not wait.
func (r *Reconciler) busyWaitLeft(in garrison.Instance, now time.Time) time.Duration {
	if ranItsJob(in) {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.busy[in.Name]
	if !ok || !now.Before(w.until) {
		return 0
	}
	return w.until.Sub(now)
}

// noteRefusedBusy records one more refusal and returns the wait before the next ask.
func (r *Reconciler) noteRefusedBusy(name string, now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.busy[name]
	w.refusal++
	d := r.o.Policy.RetryBackoff
	for i := 1; i < w.refusal && d < r.o.Policy.MaxRetryBackoff; i++ {
		d *= 2
	}
	d = min(d, r.o.Policy.MaxRetryBackoff)
	w.until = now.Add(d)
	r.busy[name] = w
	return d
}

// forgetBusy drops the instance's wait (deleted, or no longer refused).
func (r *Reconciler) forgetBusy(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.busy, name)
}

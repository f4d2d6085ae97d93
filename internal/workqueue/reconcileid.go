package workqueue

import (
	"context"
	"crypto/rand"
)

// reconcileIDKey is the context key of a handler call's reconcile id.
type reconcileIDKey struct{}

// ReconcileID returns the id of the handler call ctx belongs to ("" outside one): a short
// random string the queue also logs with the call's failures, so that a handler's log
// lines and the queue's can be matched.
func ReconcileID(ctx context.Context) string {
	id, _ := ctx.Value(reconcileIDKey{}).(string)
	return id
}

// newReconcileID returns 10 random lowercase letters and digits.
func newReconcileID() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 10)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

package store

import "context"

// urgentKey marks a context whose writes go first.
type urgentKey struct{}

// Urgent returns a context whose store writes jump ahead of ordinary ones where the
// backend serialises its writes (SQLite has one writer): a webhook's ledger write then
// waits for at most the transaction running now, not for every reconcile write queued
// before it. Use it only on request paths a client waits on and that write little.
func Urgent(ctx context.Context) context.Context {
	return context.WithValue(ctx, urgentKey{}, true)
}

// IsUrgent reports whether ctx was made by Urgent.
func IsUrgent(ctx context.Context) bool {
	v, _ := ctx.Value(urgentKey{}).(bool)
	return v
}

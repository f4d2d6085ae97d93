// Package providerexec is garrison's host side of the external provider
// contract (GARM interface v0.1.0 and v0.1.1): it runs a provider executable
// with exactly the environment of the contract, bounds its time, output and
// concurrency, kills its whole process group when it overstays, and
// validates what it prints.
//
// A provider's misbehaviour is always returned as a *CallError naming the
// provider, command and instance, and classified by one of the sentinels
// ErrNotFound, ErrDuplicate, ErrTimeout, ErrBadOutput or ErrFailed.
package providerexec

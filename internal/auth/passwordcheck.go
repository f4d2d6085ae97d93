package auth

import (
	"context"
	"runtime"
)

// PasswordChecker compares passwords against their hashes with at most a fixed number of
// comparisons running at once, so that a flood of logins cannot take every CPU. Safe for
// concurrent use.
type PasswordChecker struct {
	slots   chan struct{}              // one value held per running comparison
	compare func(hash, pw string) bool // CheckPassword; tests count calls through it
}

// DefaultPasswordChecks is how many comparisons run at once by default: half the CPUs
// Go may use, at least one.
func DefaultPasswordChecks() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// NewPasswordChecker returns a PasswordChecker running at most n comparisons at once;
// n <= 0 means DefaultPasswordChecks.
func NewPasswordChecker(n int) *PasswordChecker {
	if n <= 0 {
		n = DefaultPasswordChecks()
	}
	return &PasswordChecker{slots: make(chan struct{}, n), compare: CheckPassword}
}

// Check waits for a free slot and then reports whether password matches hash, as
// CheckPassword does (an empty hash never matches but costs as much). It returns ctx's
// error, without comparing, if ctx ends first.
func (p *PasswordChecker) Check(ctx context.Context, hash, password string) (bool, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return false, context.Cause(ctx)
	}
	defer func() { <-p.slots }()
	return p.compare(hash, password), nil
}

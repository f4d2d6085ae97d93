// Package auth holds garrison's authentication primitives: password hashing and the
// first-run rules for usernames, e-mail addresses and password strength; the HS256 JWTs of
// the admin API, metrics scraping and runner instances (claim sets compatible with GARM);
// a per-client limiter for login attempts; and a bound on how many passwords are checked
// at once.
//
// Nothing here talks to the store or to HTTP: callers look users up and map the typed
// errors of this package to responses.
package auth

import "time"

// Clock returns the current time. Tests inject a fixed or stepping clock to exercise
// expiry; nil means time.Now.
type Clock func() time.Time

func (c Clock) now() time.Time {
	if c == nil {
		return time.Now()
	}
	return c()
}

// Package github is garrison's client for GitHub and GitHub Enterprise Server, built on
// go-github v90 and ghinstallation v2.
//
// A Client serves one credential on one endpoint:
//
//	c, err := github.New(endpoint, credentials, github.Options{Logger: log})
//	cfg, err := c.CreateJITConfig(ctx, entity, garrison.JITRequest{Name: "garrison-x", Labels: tags})
//
// Every operation takes the entity (repository, organization or enterprise) it acts on
// and answers the domain's types (garrison.Runner, garrison.JITConfig, garrison.Hook,
// garrison.HookDelivery; runner downloads in the provider wire shape). The Gitea client
// has the same method set, so the forge hub routes calls without converting.
// Failures wrap a *garrison.Error (404 → ENotFound, 401/403 → EUnauthorized, 409 →
// EConflict, 422 → EUnprocessable, 400 → EInvalid) together with the go-github error, so
// both errors.Is(err, garrison.ErrNotFound) and errors.As(err, *github.ErrorResponse) work.
//
// Rate limits are handled below go-github, per client (that is, per credential): the
// x-ratelimit-* headers are recorded per resource; a call made while a resource's budget
// is known to be spent, or while a secondary limit's Retry-After runs, is not sent: it
// waits when its turn comes within Options.MaxWait, and otherwise fails at once with a
// *garrison.RateLimitError naming the time (callers do other work meanwhile); a 403/429
// rate-limit answer is treated the same way and retried. No burst follows a limit: calls
// released when it ends go one at a time, ReleaseSpacing apart with jitter, and refused
// calls are told to come back at jittered times; a forge that still refuses after the
// reset it named, or again and again, is backed off exponentially with jitter
// (pacing.go). GET responses are cached by ETag and revalidated with If-None-Match, so an
// unchanged list costs a 304, which GitHub does not charge. RateLimits reports the last
// known budgets; Options.Observer receives every update.
package github

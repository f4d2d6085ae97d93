// Package sweep is garrison's safety net for lost webhooks (GitHub never retries a failed
// delivery). SweepEntity sweeps one entity; the reconciler's sweeps controller calls it
// for every entity at a low jittered rate (internal/reconcile, Options.Sweep). A sweep:
//
//   - lists the forge's queued jobs (GitHub: queued and in_progress workflow runs and their
//     queued jobs; Gitea: queued jobs) and records those the ledger does not know, with the
//     rules the webhook receiver (internal/intake) applies to a queued delivery: a job no
//     enabled pool of the entity can serve is recorded with the reason
//     (garrison.UnservedReason), so that the job list says why it waits, and counted and
//     logged (rate-limited). The pools matching every queued job, known or not, are
//     enqueued through Notify;
//   - for the webhook garrison installed (forges with a delivery API: GitHub), lists the
//     deliveries since the previous sweep and asks the forge to redeliver, once, each
//     delivery (by GUID) that has no successful attempt. A delivery answered 422 (a job no
//     pool can serve) is not redelivered: the answer would be the same.
//
// # Budget
//
// A sweep spends at most Options.BudgetShare of each credential's API budget per rate
// limit window, measured as the drop of the remaining budget across the sweep's calls
// (an over-estimate when other work shares the credential, which errs on the safe side),
// and skips every entity of a credential whose remaining budget is under
// Options.LowBudget of its limit, until the window resets. A forge reporting no limit
// (GHES without rate limiting, Gitea) is not capped.
//
// An idle repository costs, per sweep, two run listings, one hook listing (once, then
// cached; when garrison's webhook is not there, again every Options.HookRecheck) and one
// delivery listing: all GETs the GitHub client revalidates with ETags, so
// an unchanged repository is answered 304 and charged nothing. With the default interval (10
// minutes) that is at most 18 charged calls an hour if the forge ignored ETags, and none
// in practice.
package sweep

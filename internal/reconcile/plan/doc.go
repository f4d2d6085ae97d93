// Package plan is garrison's pure planner: Plan(spec, observed) returns what one pool
// needs done — runners to create for queued jobs and to keep min_idle_runners, jobs to
// bind to booting runners, instances to delete, failed creates to retry, interrupted ones
// to resume or resolve — and why the jobs it cannot serve wait.
//
// Plan calls nothing and reads no clock: the same inputs give the same actions. Every
// pool of an entity plans on the same snapshot with the same rules, so the pools agree on
// which of them serves each job; each keeps only its own share. The package imports the
// domain and the standard library only.
package plan

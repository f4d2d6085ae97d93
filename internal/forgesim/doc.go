// Package forgesim is a stateful GitHub / GitHub Enterprise Server / Gitea simulator for
// garrison's tests and benchmarks. It speaks the REST calls garrison's forge clients make,
// with the forges' status codes, error bodies, pagination, rate limits and webhooks, and
// lets stand-in runners take jobs. Everything is in memory; it talks to loopback only.
//
// # Starting
//
//	sim := forgesim.New(forgesim.Options{})   // or serve it: httptest.NewServer(sim) + sim.SetURL(url)
//	url, err := sim.Start("127.0.0.1:0")      // "http://127.0.0.1:PORT"
//	defer sim.Close()
//	sim.AddToken("pat-1")                     // a PAT for GitHub and Gitea routes
//	sim.AddOrg("acme")                        // org with runner group 1 "Default"
//	sim.AddRepo("acme/app")
//	id, _ := sim.QueueJob("acme/app", "self-hosted", "linux")
//
// GitHub routes answer both on the root (github.com form: API base URL/) and under /api/v3
// (GHES form). Gitea routes live under /api/v1. Credentials: "Authorization: Bearer X" or
// "token X" with a PAT from AddToken, an installation token, or (for the App routes) an
// RS256 App JWT signed with a key registered with AddApp.
//
// # Go API
//
// State: AddToken, AddApp(appID, publicKey, installationIDs...), AddEnterprise(slug),
// AddOrg(name[, enterprise]), AddRepo("owner/name"), AddRunnerGroup(owner, name, enterprise),
// AddHook(scope, url, secret, forge) with scope "repos/o/r" | "orgs/o" | "enterprises/e" |
// "admin" (Gitea system hook). Inspection: Jobs, Job, Runners, Deliveries, Calls (route and
// credential → count; every request to a forge route counts), ResetCalls, Budget(cred,
// resource), URL.
//
// Jobs: QueueJob(repo, labels...) (or QueueJobFor(repo, duration, labels...)) creates a run with one queued job and sends queued
// webhooks; CancelJob cancels an unheld job (completed/cancelled).
//
// Runners: a runner exists after generate-jitconfig (GitHub, ephemeral), after
// RegisterRunner(token, name, labels, ephemeral) with a GitHub or Gitea registration token,
// or after Gitea's Register RPC. Each runner has a secret: Runners()[i].Secret, the
// "ClientId" of the JIT .credentials file (see RunnerSecret), or the Register RPC's token.
// Acquire(name, secret) takes the oldest queued job in the runner's scope whose labels
// are all among the runner's (case-insensitive) — there is no job↔runner binding, as on
// GitHub — and marks the runner online and busy; StartJob(id, secret) moves it to
// in_progress (webhook with runner fields); CompleteJob(id, secret, conclusion) completes
// it, frees the runner and deletes it first if ephemeral. A deleted runner's secret is
// refused (EUnauthorized), like a daemon that keeps polling after deregistration.
//
// Faults: Options.RateLimit / SetRateLimit (limit, window, 403 or 429, per-route resource,
// Disabled for GHES), TriggerSecondaryLimit(n, retryAfter, status), Options.Delivery /
// SetDeliveryFaults (drop, duplicate, delay, reorder probabilities drawn from the RNG
// seeded with Options.Seed, in event order), RevokeToken(token) (401 until AddToken
// again), SetUnreachable(scope, bool) (every route of a repository, organization or
// enterprise answers 404, as for a deleted entity or lost access). WaitDeliveries(ctx)
// waits for the webhook sender to go idle. SetRunnerTarball sets the download content.
//
// # GitHub HTTP API ({scope} = repos/{owner}/{repo} | orgs/{org} | enterprises/{enterprise})
//
//	POST   /{scope}/actions/runners/registration-token   201 {token, expires_at}
//	POST   /{scope}/actions/runners/remove-token         201
//	POST   /{scope}/actions/runners/generate-jitconfig   201 {runner, encoded_jit_config}; 409 duplicate name; 422 missing name/labels/runner_group_id; 404 unknown scope or group
//	GET    /{scope}/actions/runners?name=&per_page=&page= 200 {total_count, runners} + Link
//	GET    /{scope}/actions/runners/{id}                  200; 404
//	DELETE /{scope}/actions/runners/{id}                  204; 422 busy; 404
//	GET    /{scope}/actions/runners/downloads             200 [...] → /_sim/downloads/{file}
//	GET    /orgs/{org}/actions/runner-groups, /enterprises/{e}/actions/runner-groups
//	GET|POST /{repos/o/r|orgs/o}/hooks, GET|DELETE …/hooks/{id}, POST …/hooks/{id}/pings (204)
//	GET    …/hooks/{id}/deliveries?per_page&cursor&status, GET …/deliveries/{id}
//	POST   …/hooks/{id}/deliveries/{id}/attempts          202 {} (same GUID, redelivery true)
//	GET    /repos/{o}/{r}/actions/runs?status=, …/runs/{id}/jobs, …/actions/jobs/{id}
//	POST   /app/installations/{id}/access_tokens          201 (App JWT); GET /rate_limit
//
// Errors are basic-error bodies ({"message", "documentation_url", "status"}) or 422
// validation errors. Every response has X-GitHub-Request-Id and, unless rate limiting is
// disabled, x-ratelimit-{limit,used,remaining,reset,resource} per credential and resource.
// A spent budget answers 403 (or 429) with remaining 0; a secondary limit answers 403/429
// with Retry-After and the secondary-rate-limits documentation_url (TriggerSecondaryLimit);
// TriggerStaleRateLimit answers a spent budget whose reset time has passed already.
// CallLog lists every call with its time, to count requests over time. GETs carry a weak
// ETag; a matching If-None-Match gets 304, which is not charged.
//
// # Gitea HTTP API (under /api/v1; {scope} = repos/{owner}/{repo} | orgs/{org} | admin)
//
//	POST   /{scope}/actions/runners/registration-token   200 {token} (one per scope, reused)
//	GET    /{scope}/actions/runners, GET|DELETE …/{id}    {runners, total_count}; 204; 404
//	GET    /{scope}/actions/jobs?status=&page&limit       {jobs, total_count}
//	GET|POST /{scope}/hooks, GET|DELETE /{scope}/hooks/{id} 200/201/200/204
//	POST   /repos/o/r/hooks/{id}/tests                    204, delivers a synthetic push
//	POST   /api/actions/runner.v1.RunnerService/Register (JSON; {name, token, labels, ephemeral})
//	GET    /api/v1/repos/gitea/runner/releases             public; newest first: v0.3.0 (gitea-runner-* assets,
//	                                                      with .xz and .sha256 companions), v0.2.11 (act_runner-*);
//	                                                      SetGiteaReleases replaces them. Assets download from
//	                                                      /_sim/downloads/ (SetRunnerBinary sets their content)
//
// Gitea hooks get Gitea deliveries: X-Gitea-*/X-Gogs-* headers next to the GitHub ones,
// X-Gitea-Hook-Installation-Target-Type, bare-hex X-Gitea-Signature, payloads without
// runner fields or conclusion until set, epoch placeholders for unset times, organizations
// without login, and html_url …/actions/runs/{run}/jobs/{job}.
//
// # Actions service (runner scale sets; spec forge-api.md §8)
//
// Bootstrap: POST [/api/v3]/actions/runner-registration with "Authorization: RemoteAuth
// <registration token>" and {"url": <entity web URL>, "runner_event": "register"} answers
// {url: <base>/_actions/{tenant}/, token: <admin JWT>, token_schema}. Admin calls take
// "Bearer <admin JWT>"; the queue calls (messages, acquirejobs) the session's queue token.
// Errors are {"typeName", "message"} with an ActivityId header.
//
//	GET    _apis/runtime/runnergroups/?groupName=     {count, value: [{id, name, size, isDefaultGroup}]}
//	GET    _apis/runtime/runnerscalesets?runnerGroupId=&name=   {count, value}
//	POST   _apis/runtime/runnerscalesets               200; 400 no name; 404 group; 409 name taken in the group
//	GET|PATCH|DELETE …/runnerscalesets/{id}            200/200/204; 404 RunnerScaleSetNotFoundException
//	POST   …/{id}/generatejitconfig {name, workFolder} 200 {runner, encodedJITConfig}; 409 AgentExistsException
//	POST   …/{id}/sessions {ownerName}                 200 session; 409 TaskAgentSessionConflictException
//	PATCH|DELETE …/{id}/sessions/{sid}                 200 (new queue token) / 204; 404
//	GET    …/{id}/messages?sessionId=[&lastMessageId=] 200 message | 202 after Hold | 401 queue token
//	DELETE …/{id}/messages/{messageId}?sessionId=      204 (ack; idempotent)
//	POST   …/{id}/acquirejobs [requestId, …]           200 {count, value}
//	GET    _apis/distributedtask/pools/0/agents[?agentName=], GET|DELETE …/agents/{id}
//	                                                   404 AgentNotFoundException; 409 JobStillRunningException
//
// A queued job goes to the first scale set (lowest id) whose tenant covers its repository
// and whose labels hold all of the job's; pool runners never take it. On github.com
// (default) it comes as JobAssigned (runnerRequestId 0, string jobId); with
// ScaleSetOptions.Available as JobAvailable and is assigned after acquirejobs. A runner
// made by generatejitconfig belongs to its set; Acquire, StartJob and CompleteJob (above)
// play it and send JobStarted and JobCompleted. Events are batched into messages of at most
// BatchSize; a message stays until acknowledged or passed by lastMessageId. Statistics are
// computed when a message or session is served. One session per set; a session not polled
// for SessionIdle lapses.
//
// Go API: Options.ScaleSets / SetScaleSetOptions (Hold, token lifetimes, SessionIdle,
// BatchSize, Available, BOM, MaxRequeues), ScaleSets() (sessions, un-acked and pending
// messages, last X-ScaleSetMaxCapacity, statistics), Jobs()[i].ScaleSetID,
// Runners()[i].ScaleSetID. Faults: FailScaleSetCalls(n, status), FailRegistrations(n, status), SetScaleSetOutage(on)
// (polls stall: held, then 202), ExpireQueueTokens(set), ExpireAdminTokens(),
// OpenForeignSession(set, owner) (a conflict for the next create), CancelAssignment(job)
// (JobCompleted "canceled", then offered again, up to MaxRequeues), CompleteEarly(job)
// (JobCompleted while the job still runs), StrandRunner(id) (offline for good, never gets
// a job: a runner lost in an outage). Over HTTP: GET /_sim/scalesets, POST
// /_sim/scalesets/faults {fail, status, outage, expire_admin_tokens}, POST
// /_sim/scalesets/{id}/expire-queue-tokens, POST /_sim/scalesets/{id}/foreign-session,
// POST /_sim/jobs/{id}/cancel-assignment, POST /_sim/jobs/{id}/complete-early, POST
// /_sim/runners/{id}/strand.
//
// # Simulator HTTP API (/_sim/, no auth unless noted)
//
//	GET  /_sim/calls                     [{route, credential, count}]
//	GET  /_sim/jobs, /_sim/runners, /_sim/deliveries
//	POST /_sim/repos {name, org}          201
//	POST /_sim/jobs {repo, labels, duration}  201 job (duration: Go syntax, how long a stand-in runner runs it)
//	POST /_sim/runners/register {token, name, labels, ephemeral}  201 {id, name, secret, labels}
//	POST /_sim/runners/{name}/acquire     Bearer secret → 200 job | 204 none | 401
//	POST /_sim/jobs/{id}/start            Bearer secret → 200 job
//	POST /_sim/jobs/{id}/complete {conclusion}  Bearer secret → 200 job
//	GET  /_sim/downloads/{file}           the runner tarball (503 while SetDownloadsBlocked)
//
// Webhooks carry X-GitHub-Event, X-GitHub-Delivery (kept on redelivery), X-GitHub-Hook-ID,
// X-GitHub-Hook-Installation-Target-Type/-ID and, with a secret, X-Hub-Signature-256
// (sha256=) and X-Hub-Signature (sha1=). There is no automatic retry; failures are
// recorded and can be redelivered through the API.
package forgesim

// Package scaleset is garrison's client for the GitHub Actions service's runner scale set
// protocol (spec forge-api.md §8): scale sets, message sessions, the job message long poll,
// job acquisition, scale-set JIT configurations and the agents endpoints. It works against
// github.com and GitHub Enterprise Server, with a PAT or GitHub App installation
// credentials.
//
//	c, err := scaleset.New(endpoint, credentials, entity, scaleset.Options{Logger: log})
//	set, err := c.CreateScaleSet(ctx, scaleset.ScaleSet{Name: "linux", RunnerGroupID: 1})
//	sess, err := c.CreateSession(ctx, set.ID, hostname)   // ErrSessionConflict: another is open
//	q := c.Queue(sess)                                     // refreshes the queue token on 401
//	msg, err := q.Get(ctx, lastID, maxRunners)             // nil, nil: nothing within the hold
//	err = q.Ack(ctx, msg.ID)
//
// # Why not github.com/actions/scaleset alone
//
// The reference client, github.com/actions/scaleset v0.4.0, is what ARC's listener uses,
// and this package follows it on every wire detail: its types (pinned in go.mod) decode the
// responses, and its behaviour (bootstrap through a registration token and
// runner-registration, admin token renewed when less than 60 s remain, "api-version=6.0-
// preview", retries of connection errors, 429 and 5xx honouring Retry-After, one retry
// after a 401 on the message queue, UTF-8 BOM trimmed) is reproduced here. Its Client is not
// used for the calls themselves because garrison's listener needs what it cannot do:
//
//   - resume or delete a session by id. Its MessageSessionClient can only be made by
//     creating a new session and only deletes that one, so a replica that takes over a
//     scale set after another one crashed could not delete the stale session (it would get
//     409 until the service expires it) nor keep polling a session it stored;
//   - refresh a session on demand (it refreshes only after a 401);
//   - tell failures apart: apart from four sentinels its errors carry the HTTP status only
//     in their text, and a retry client passed with WithRetryableHTTPClint has its retry
//     policy replaced at every token renewal, so no hook can see the status either. Here
//     409 on session create, 401 on the queue, 404, 429 and 5xx are typed errors;
//   - keep the order of the job events in a message (it splits them into one list per
//     type), which matters when one batch holds JobStarted and JobCompleted for the same
//     runner.
//
// # Errors
//
// Failures wrap a *garrison.Error (or a *garrison.RateLimitError for 429) and an *APIError
// with the status, the service's typeName and its message. Sentinels tell the protocol's
// cases apart: ErrSessionConflict (409 on session create; the error is also
// garrison.ErrConflict), ErrTokenExpired (401 with a queue token; also
// garrison.ErrUnauthorized), ErrRunnerExists (AgentExistsException), ErrJobStillRunning
// (JobStillRunningException); a missing scale set or runner is garrison.ErrNotFound; 5xx
// after the retries is garrison.ErrUnavailable.
package scaleset

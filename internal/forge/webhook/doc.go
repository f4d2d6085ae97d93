// Package webhook verifies and parses the workflow_job webhooks that GitHub, GitHub
// Enterprise Server and Gitea send to garrison (rest-api.md §4).
//
// It is pure: no I/O, no logging, standard library and the domain package only. The HTTP
// receiver calls it in this order:
//
//	meta := webhook.ReadHeaders(r.Header)          // W-3, W-4: event, forge, target type
//	if meta.Event != webhook.EventWorkflowJob { 200 }
//	ev, err := webhook.ParseWorkflowJob(meta, body) // W-5, W-7, W-9 fields
//	... look up the endpoint (ev.BaseURL) and the entity (ev.EntityOwner, ev.EntityName) ...
//	err = webhook.Verify(r.Header, body, secret)    // W-8, constant time, on the raw body
//
// Verify never looks at the payload, so a receiver that knows the secret up front may call
// it first. Every error it or ParseWorkflowJob returns wraps a *garrison.Error, so
// garrison.CodeOf maps it to an HTTP status (EUnauthorized → 401, EInvalid → 400); the
// sentinels below tell the cases apart with errors.Is.
package webhook

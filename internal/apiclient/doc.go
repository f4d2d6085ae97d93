// Package apiclient is a typed HTTP client for garrison's REST API v1 (which is
// GARM's API v1; see shared/spec/rest-api.md). It is used by the command line
// client in internal/cli and by tests and tools that drive a running server.
//
// Every request carries "Authorization: Bearer <token>" and
// "Accept: application/json"; requests with a body also carry
// "Content-Type: application/json". Requests time out after 30 seconds.
// Query parameters with an empty value are not sent.
//
// Error responses are decoded from the {"error","details"} body into an
// *Error that carries the HTTP status code; tell them apart with errors.As
// (or the IsNotFound / IsConflict helpers).
package apiclient

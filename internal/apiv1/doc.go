// Package apiv1 holds the JSON shapes of garrison's REST API v1, which matches GARM's so that
// garm-cli and other GARM API clients work unchanged (see shared/spec/rest-api.md). The server
// (internal/httpapi) and the client (internal/apiclient) share these types.
//
// Response types list every key GARM emits; keys marked "always" in the spec have no
// omitempty. Request types use pointers where "absent" and "zero" mean different things.
package apiv1

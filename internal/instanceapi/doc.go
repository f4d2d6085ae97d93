// Package instanceapi serves the endpoints runner instances call while they bootstrap
// (instance-api.md §1–§8): /api/v1/metadata/... (runner metadata, registration token,
// JIT credential files, service name, systemd unit, certificate bundle, install script,
// garm-agent tools) and /api/v1/callbacks/... (status and system-info).
//
// Every request carries the instance JWT minted for one instance and one create attempt.
// The middleware applies the acceptance checks of §2 in order, re-reading the instance,
// its pool and its entity from the store on each request; a token therefore only ever acts
// on the instance it names and dies once the runner is past installing.
//
// garrison ships no garm-agent binaries: runner-metadata always reports agent_mode:false,
// the tool list is empty (total_count 0) and any tool id is 404 (§7 allows this).
//
// The install script is the pool's runner install template (its template_id), rendered
// per request. A pool stored before templates existed has template_id 0 and gets the
// built-in script of the entity's forge type and the pool's OS type
// (bootstrap.InstallScript), so the 409 "no template" answer only happens for a forge/OS
// pair without a built-in script.
package instanceapi

// Package forges hands out forge clients per credentials: it builds a GitHub or Gitea
// client for an entity's credentials and endpoint, rebuilds it when either changes, and
// routes the calls of the REST API, the instance API, the missed-webhook sweep and the
// reconciler to it. Both clients answer in the domain's types through one method set
// (Client), so this is the only package that knows both forges and it converts nothing.
// Forge calls made through it also report, per entity, whether the forge refused the
// credentials or lost the entity (Options.Health).
package forges

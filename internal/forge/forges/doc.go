// Package forges hands out forge clients per credentials: it builds a GitHub or Gitea
// client for an entity's credentials and endpoint, rebuilds it when either changes, and
// adapts both clients to the small interfaces the REST API, the instance API, the
// missed-webhook sweep and the reconciler declare. It is the only package that knows
// both forges; forge calls made through it also report, per entity, whether the forge
// refused the credentials or lost the entity (Options.Health).
package forges

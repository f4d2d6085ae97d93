// Package cli holds garrison's client commands: a command tree that mirrors
// garm-cli (init, profile, controller, github, gitea, credentials, repo, org,
// enterprise, pool, runner, job, provider, metrics-token) and talks to a
// garrison or GARM server through internal/apiclient.
//
// cmd/garrison attaches the commands returned by Commands to its root
// command. The HTTP calls each command makes, in order, and the body keys
// they send follow shared/spec/rest-api.md §5.
//
// Server connections are kept as named profiles (URL, username, token) in
// profiles.json, mode 0600, in the configuration directory (Options.ConfigDir,
// else $GARRISON_CONFIG_DIR, else $XDG_CONFIG_HOME/garrison or
// ~/.config/garrison).
package cli

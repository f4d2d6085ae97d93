// Package bootstrap writes the scripts that turn a fresh instance into a registered
// runner:
//
//   - the bootstrap wrapper (provider-contract.md §10 ), which the manager injects
//     into a pool's extra specs as runner_install_template. It only knows the metadata
//     URL, the callback URL and the instance token; it downloads the real install script
//     from the metadata service and runs it, reporting "failed" on HTTP errors.
//   - the runner install scripts served by the install-script endpoint
//     (instance-api.md §6 and §10), for Linux (bash) and Windows (PowerShell), GitHub and
//     Gitea, rendered with text/template against InstallContext.
//
// The scripts are written for garrison from the behaviour the specs describe. The package
// imports the standard library only.
package bootstrap

// Package userdata turns a CreateInstance request into what boots a runner:
// the rendered runner install script, a cloud-init user-data document
// (provider-contract.md §11) for instances that run cloud-init, and a plain
// shell entry script doing the same for containers that do not (Docker).
//
// Spec holds the extra-specs keys every first-party provider accepts
// (runner_install_template, extra_context, pre_install_scripts,
// disable_updates, extra_packages, enable_boot_debug). Providers embed it in
// their own extra-specs struct, decode strictly (unknown keys refused) and
// publish SchemaProperties in their JSON schema.
//
// The package lives under providers/incus but is shared by the first-party
// providers (providers/docker imports it).
package userdata

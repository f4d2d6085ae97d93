// Package config reads garrison's TOML configuration.
//
// The file format is GARM's config.toml: every section and key GARM reads is
// accepted with the same name and type, so an existing GARM configuration
// can be pointed at garrison unchanged. garrison adds a few keys of its own
// (see REFERENCE.md in this directory for every key, its type, its default
// and what is checked).
//
// Decoding is strict. An unknown key, a value of the wrong type or a value
// out of range is an error that names the key; all problems found in one pass
// are returned together (joined with errors.Join) so that a user can fix
// them in one go. The individual errors are *FieldError, *UnknownKeyError
// and *SyntaxError and are told apart with errors.As.
//
// A few GARM sections that garrison does not use ([[github]] legacy
// credentials, [database.mysql], [default] config_dir) are
// accepted and ignored; each one present adds a human-readable entry to
// Config.Warnings, which the server should log at startup.
//
// Secrets (the database passphrase and the JWT signing secret) may be set in
// the file; when they are not, the server generates them once with
// LoadOrCreateSecrets and fills them in with Config.ApplySecrets.
package config

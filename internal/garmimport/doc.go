// Package garmimport reads a GARM installation — its config.toml and its database
// (SQLite with the blob database next to it, or PostgreSQL) — and writes what garrison
// can hold into a garrison store in one transaction: controller id and URLs, users,
// endpoints, credentials, entities with their webhook secrets and events, pools with
// their tags, live instances and open jobs. What garrison cannot hold yet is listed in
// the report with the reason, and blocks the import while in use unless the caller
// skips it knowingly. See ../shared/spec/garm-import.md (Part B) for the rules.
//
// The GARM database is never written: SQLite files are copied into a private temporary
// directory (with their -wal companions, where a stopped GARM may have left its newest
// rows) and the copies are read; PostgreSQL is read in one read-only, repeatable-read
// transaction. MySQL is refused.
//
// GARM's sealed columns are opened here (unseal.go, dare.go) with the standard library
// and golang.org/x/crypto: the current envelope (HKDF-SHA256 + a DARE 2.0 stream) and
// the legacy AES-256-GCM form. The target store re-seals every secret with garrison's
// key.
package garmimport

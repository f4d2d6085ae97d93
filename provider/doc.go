// Package provider is the public wire contract between a runner manager
// (garrison, or GARM) and an external provider executable, interface versions
// v0.1.0 and v0.1.1.
//
// A provider is an executable run without arguments. The operation is named
// by the GARM_COMMAND environment variable, the CreateInstance request is a
// BootstrapInstance JSON document on stdin, results are written to stdout as
// JSON (ProviderInstance), diagnostics go to stderr, and the exit status tells
// success (0), "not found" (30), "duplicate" (31) or failure (anything else).
//
// The package imports the standard library only. Provider authors in Go
// normally use it through package provider/sdk; the manager uses ParseInstance
// and ParseInstanceList to validate provider output.
package provider

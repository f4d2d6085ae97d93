// Package server is garrison's composition root: the only package that wires the
// concrete parts together (the store backend, the provider executables, the forge
// clients, the reconciler, the missed-webhook sweep and the HTTP handlers).
//
// LoadConfig resolves a server's configuration (data directory, config file, generated
// secrets, flag overrides); Run runs a server as `garrison server` does (data directory
// lock, log file and SIGHUP, listening). New, Serve and Close wire and run one in-process,
// as the tests and the demo do.
package server

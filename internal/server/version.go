package server

import "github.com/garrison-ci/garrison/internal/buildinfo"

// Version returns garrison's version string, with the commit it was built from
// (internal/buildinfo).
func Version() string { return buildinfo.Version() }

// Build returns what this binary knows about its build: version, commit, commit time.
func Build() buildinfo.Info { return buildinfo.Read() }

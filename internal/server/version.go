package server

import "github.com/garrison-ci/garrison/internal/buildinfo"

// Version returns garrison's version string, with the commit it was built from
// (internal/buildinfo).
func Version() string { return buildinfo.Version() }

package server

import "runtime/debug"

// version is set at build time with
// -ldflags "-X github.com/garrison-ci/garrison/internal/server.version=v1.2.3";
// otherwise it is derived from the module build information.
var version = ""

// Version returns garrison's version string.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "v0.0.0-dev"
}

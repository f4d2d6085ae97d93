// Package buildinfo says which garrison this is: its version and the commit it was built
// from. A plain `go build` in a git checkout stamps the commit (Go's vcs.revision build
// setting), so every build shows it; a release build may also set the version with
// -ldflags "-X github.com/garrison-ci/garrison/internal/buildinfo.version=v1.2.3".
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// version and revision are set at link time (see the package documentation); empty
// otherwise.
var version, revision = "", ""

// devVersion is the version of a build that has neither a link-time nor a module version.
const devVersion = "v0.0.0-dev"

// Info is what a binary knows about its own build.
type Info struct {
	Version  string // link-time or module version, else v0.0.0-dev
	Revision string // the full commit hash, "" when the build was not stamped
	Modified bool   // the work tree had uncommitted changes
	Time     string // the commit time (RFC 3339), "" when unknown
}

// Read returns this binary's build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi, version, revision)
}

// fromBuildInfo extracts Info from Go's build information (nil when the binary has none)
// and the link-time version and revision; the build's own vcs.revision wins.
func fromBuildInfo(bi *debug.BuildInfo, linked, linkedRev string) Info {
	out := Info{Version: linked, Revision: linkedRev}
	if bi == nil {
		if out.Version == "" {
			out.Version = devVersion
		}
		return out
	}
	if out.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		out.Version = bi.Main.Version
	}
	if out.Version == "" {
		out.Version = devVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			out.Revision = s.Value
		case "vcs.modified":
			out.Modified = s.Value == "true"
		case "vcs.time":
			out.Time = s.Value
		}
	}
	return out
}

// ShortRevision is the first 12 characters of the commit, with ".dirty" when the tree had
// changes; "" when unknown.
func (i Info) ShortRevision() string {
	r := i.Revision
	if len(r) > 12 {
		r = r[:12]
	}
	if r != "" && i.Modified {
		r += ".dirty"
	}
	return r
}

// String is the version with the commit as semver build metadata (v1.2.3+0123456789ab),
// unless the version names the commit already (a Go pseudo-version does).
func (i Info) String() string {
	short := i.ShortRevision()
	if short == "" || (len(i.Revision) >= 12 && strings.Contains(i.Version, i.Revision[:12])) {
		return i.Version
	}
	sep := "+"
	if strings.Contains(i.Version, "+") {
		sep = "."
	}
	return i.Version + sep + short
}

// Version is Read().String(): garrison's version with its commit.
func Version() string { return Read().String() }

package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	stamped := func(version string, modified bool) *debug.BuildInfo {
		m := "false"
		if modified {
			m = "true"
		}
		return &debug.BuildInfo{Main: debug.Module{Version: version}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: m}, {Key: "vcs.time", Value: "2026-11-24T12:00:00Z"}}}
	}
	tests := []struct {
		name            string
		bi              *debug.BuildInfo
		linked, linkRev string
		want, short     string
	}{
		{"plain go build in a checkout", stamped("(devel)", false), "", "", "v0.0.0-dev+0123456789ab", "0123456789ab"},
		{"with uncommitted changes", stamped("(devel)", true), "", "", "v0.0.0-dev+0123456789ab.dirty", "0123456789ab.dirty"},
		{"release with a link-time version", stamped("(devel)", false), "v1.2.3", "", "v1.2.3+0123456789ab", "0123456789ab"},
		{"version with build metadata", stamped("(devel)", false), "v1.2.3+rc", "", "v1.2.3+rc.0123456789ab", "0123456789ab"},
		{"pseudo-version names the commit", stamped("v0.0.0-20261124120000-0123456789ab", false), "", "",
			"v0.0.0-20261124120000-0123456789ab", "0123456789ab"},
		{"go install of a tagged module", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "", "", "v1.4.0", ""},
		{"container build: link-time revision", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", rev, "v0.0.0-dev+0123456789ab", "0123456789ab"},
		{"no build info", nil, "", "", "v0.0.0-dev", ""},
		{"no build info, link-time values", nil, "v2.0.0", rev, "v2.0.0+0123456789ab", "0123456789ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := fromBuildInfo(tt.bi, tt.linked, tt.linkRev)
			if got := i.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := i.ShortRevision(); got != tt.short {
				t.Errorf("ShortRevision() = %q, want %q", got, tt.short)
			}
		})
	}
}

package forgesim

import (
	"net/http"
	"strings"
)

// GiteaRunnerVersion is the runner version of the newest simulated release; its assets
// are named like current Gitea runner releases, gitea-runner-<version>-<os>-<arch>.
const GiteaRunnerVersion = "0.3.0"

// giteaLegacyVersion is an older simulated release, below the version garrison accepts,
// whose assets carry the former act_runner- prefix.
const giteaLegacyVersion = "0.2.11"

// giteaReleasePath is where gitea.com serves the runner's releases; garrison's default
// tools_metadata_url for Gitea endpoints points at the same path.
const giteaReleasePath = "/api/v1/repos/gitea/runner/releases"

// GiteaRelease is one release of the simulated runner releases list.
type GiteaRelease struct {
	Tag    string   // e.g. "v0.3.0"
	Assets []string // file names; each is served under /_sim/downloads/
}

// DefaultGiteaReleases are the releases served until SetGiteaReleases: v0.3.0 with
// gitea-runner- binaries (and .xz and .sha256 companions), then v0.2.11 with act_runner-
// binaries.
func DefaultGiteaReleases() []GiteaRelease {
	cur := []string{"linux-amd64", "linux-amd64.xz", "linux-amd64.sha256", "linux-arm64", "linux-arm-7", "windows-amd64.exe"}
	old := []string{"linux-amd64", "linux-arm64", "windows-amd64.exe"}
	return []GiteaRelease{
		{Tag: "v" + GiteaRunnerVersion, Assets: assetNames("gitea-runner-"+GiteaRunnerVersion, cur)},
		{Tag: "v" + giteaLegacyVersion, Assets: assetNames("act_runner-"+giteaLegacyVersion, old)},
	}
}

func assetNames(stem string, targets []string) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = stem + "-" + t
	}
	return out
}

// SetGiteaReleases replaces the runner releases the simulated Gitea lists, newest first.
func (s *Sim) SetGiteaReleases(rels []GiteaRelease) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releases = make([]GiteaRelease, len(rels))
	copy(s.releases, rels)
}

// giteaReleases serves the releases list in the Gitea releases API shape. It is public,
// like gitea.com's, and is not counted as a forge API call.
func (s *Sim) giteaReleases(w http.ResponseWriter, _ *http.Request) {
	base := s.URL()
	s.mu.Lock()
	rels := s.releases
	s.mu.Unlock()
	if rels == nil {
		rels = DefaultGiteaReleases()
	}
	out := []map[string]any{}
	id := 0
	for i, rel := range rels {
		assets := []map[string]any{}
		for _, name := range rel.Assets {
			id++
			assets = append(assets, map[string]any{
				"id": id, "name": name, "browser_download_url": base + "/_sim/downloads/" + name,
			})
		}
		out = append(out, map[string]any{"id": i + 1, "tag_name": rel.Tag, "name": rel.Tag, "draft": false,
			"prerelease": false, "assets": assets})
	}
	s.write(w, ok(http.StatusOK, out))
}

// SetRunnerBinary sets the content served for Gitea runner downloads (gitea-runner-* and
// act_runner-*), which are bare executables rather than tarballs. Until it is set they
// get the tarball.
func (s *Sim) SetRunnerBinary(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.binary = append([]byte(nil), b...)
}

// download returns the content and type served for a runner download file name.
func (s *Sim) download(file string) ([]byte, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isGiteaRunner(file) && s.binary != nil {
		return s.binary, "application/octet-stream"
	}
	return s.tarball, "application/gzip"
}

// isGiteaRunner reports whether a download name is a Gitea runner binary.
func isGiteaRunner(file string) bool {
	return strings.HasPrefix(file, "gitea-runner-") || strings.HasPrefix(file, "act_runner-")
}

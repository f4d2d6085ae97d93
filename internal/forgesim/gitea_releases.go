package forgesim

import (
	"fmt"
	"net/http"
	"strings"
)

// GiteaRunnerVersion is the act_runner version the simulated release list offers.
const GiteaRunnerVersion = "0.2.11"

// giteaReleasePath is where gitea.com serves the runner's releases; garrison's default
// tools_metadata_url for Gitea endpoints points at the same path.
const giteaReleasePath = "/api/v1/repos/gitea/runner/releases"

// giteaReleaseTargets are the os-arch suffixes of the simulated act_runner assets.
var giteaReleaseTargets = []string{"linux-amd64", "linux-arm64", "linux-arm-7", "windows-amd64.exe"}

// giteaReleases serves a one-release list in the Gitea releases API shape. It is public,
// like gitea.com's, and is not counted as a forge API call.
func (s *Sim) giteaReleases(w http.ResponseWriter, _ *http.Request) {
	base := s.URL()
	var assets []map[string]any
	for i, t := range giteaReleaseTargets {
		name := fmt.Sprintf("act_runner-%s-%s", GiteaRunnerVersion, t)
		assets = append(assets, map[string]any{
			"id": i + 1, "name": name, "browser_download_url": base + "/_sim/downloads/" + name,
		})
	}
	rel := []map[string]any{{"id": 1, "tag_name": "v" + GiteaRunnerVersion, "assets": assets}}
	s.write(w, ok(http.StatusOK, rel))
}

// SetRunnerBinary sets the content served for Gitea runner downloads (act_runner-*),
// which are bare executables rather than tarballs. Until it is set they get the tarball.
func (s *Sim) SetRunnerBinary(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.binary = append([]byte(nil), b...)
}

// download returns the content and type served for a runner download file name.
func (s *Sim) download(file string) ([]byte, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(file, "act_runner-") && s.binary != nil {
		return s.binary, "application/octet-stream"
	}
	return s.tarball, "application/gzip"
}

package gitea

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

type releaseJSON struct {
	TagName string `json:"tag_name"`
	Draft   bool   `json:"draft"`
	Assets  []struct {
		Name string `json:"name"`
		URL  string `json:"browser_download_url"`
	} `json:"assets"`
}

// MinRunnerVersion is the oldest runner release garrison uses (as GARM does).
const MinRunnerVersion = "v0.2.12"

// runnerPrefixes are the asset name prefixes of runner binaries: current releases name
// them gitea-runner-<version>-<os>-<arch>, older ones act_runner-<version>-<os>-<arch>.
var runnerPrefixes = []string{"gitea-runner-", "act_runner-"}

// RunnerDownloads lists the runner binaries of the endpoint's runner releases (the same
// for every entity), fetched at most once per Options.DownloadsTTL; see
// fetchDownloads for which release is chosen.
func (c *Client) RunnerDownloads(ctx context.Context, _ garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	c.mu.Lock()
	ds, at := c.downloads, c.downloadsAt
	c.mu.Unlock()
	if ds != nil && c.now().Sub(at) < c.ttl {
		return ds, nil
	}
	ds, err := c.fetchDownloads(ctx, c.toolsURL)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.downloads, c.downloadsAt = ds, c.now()
	c.mu.Unlock()
	return ds, nil
}

// fetchDownloads lists the runner binaries of the first release at toolsURL (a releases
// API URL in Gitea's shape, newest first: the endpoint's tools_metadata_url, by default
// gitea.com's runner releases) whose version is MinRunnerVersion or newer and which has
// runner binaries. Checksum and compressed assets are skipped. When no release
// qualifies, or the URL answers 404, the error has code ENotFound and says why.
func (c *Client) fetchDownloads(ctx context.Context, toolsURL string) ([]provider.RunnerApplicationDownload, error) {
	rels, err := c.releases(ctx, toolsURL)
	if err != nil {
		return nil, err
	}
	return pickDownloads(rels, toolsURL)
}

// pickDownloads chooses the release (see fetchDownloads) and lists its runner binaries.
func pickDownloads(rels []releaseJSON, toolsURL string) ([]provider.RunnerApplicationDownload, error) {
	if len(rels) == 0 {
		return nil, garrison.Errorf(garrison.ENotFound, "gitea: %s lists no runner release", toolsURL)
	}
	for _, rel := range rels {
		if rel.Draft || !atLeast(rel.TagName, MinRunnerVersion) {
			continue
		}
		if ds := parseAssets(rel); len(ds) > 0 {
			return ds, nil
		}
	}
	return nil, garrison.Errorf(garrison.ENotFound, "gitea: no runner release %s or newer with runner binaries at %s (newest: %s)",
		MinRunnerVersion, toolsURL, rels[0].TagName)
}

// releases fetches and decodes a releases list.
func (c *Client) releases(ctx context.Context, toolsURL string) ([]releaseJSON, error) {
	if !garrison.ValidURL(toolsURL) {
		return nil, garrison.Errorf(garrison.EInvalid, "gitea: tools metadata URL %q is not an http(s) URL", toolsURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, toolsURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("gitea: runner releases: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, garrison.Errorf(garrison.ENotFound, "gitea: runner releases at %s: HTTP 404", toolsURL)
	default:
		return nil, garrison.Errorf(garrison.EInternal, "gitea: runner releases at %s: HTTP %d", toolsURL, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("gitea: runner releases: %w", err)
	}
	var rels []releaseJSON
	if err := decode(b, &rels); err != nil {
		return nil, fmt.Errorf("gitea: runner releases at %s: %w", toolsURL, err)
	}
	return rels, nil
}

// parseAssets maps <prefix><version>-<os>-<arch>[.exe] assets to downloads. The
// architecture is Go's name: a variant suffix is dropped (arm-7 is arm). An asset whose
// download URL is not an http(s) URL is skipped: instances fetch it.
func parseAssets(rel releaseJSON) []provider.RunnerApplicationDownload {
	version := strings.TrimPrefix(rel.TagName, "v")
	var out []provider.RunnerApplicationDownload
	for _, a := range rel.Assets {
		rest, ok := cutRunnerPrefix(a.Name, version)
		if !ok || strings.HasSuffix(rest, ".sha256") || strings.HasSuffix(rest, ".xz") || !garrison.ValidURL(a.URL) {
			continue
		}
		rest = strings.TrimSuffix(rest, ".exe")
		os, arch, ok := strings.Cut(rest, "-")
		if !ok || os == "" || arch == "" {
			continue
		}
		arch, _, _ = strings.Cut(arch, "-")
		out = append(out, provider.RunnerApplicationDownload{OS: os, Architecture: arch, Filename: a.Name, DownloadURL: a.URL})
	}
	return out
}

// cutRunnerPrefix strips "<prefix><version>-" from an asset name.
func cutRunnerPrefix(name, version string) (string, bool) {
	for _, p := range runnerPrefixes {
		if rest, ok := strings.CutPrefix(name, p+version+"-"); ok {
			return rest, true
		}
	}
	return "", false
}

// atLeast reports whether the release tag's version (v optional) is min or newer. A
// pre-release counts as older than its release; an unparsable tag never qualifies.
func atLeast(tag, min string) bool {
	v, vpre, ok := parseVersion(tag)
	m, mpre, mok := parseVersion(min)
	if !ok || !mok {
		return false
	}
	for i := range v {
		if v[i] != m[i] {
			return v[i] > m[i]
		}
	}
	return !vpre || mpre
}

// parseVersion parses [v]MAJOR.MINOR.PATCH[-pre][+build]; pre reports a pre-release.
func parseVersion(s string) (ver [3]int, pre, ok bool) {
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "+")
	s, suffix, hasPre := strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 || (hasPre && suffix == "") {
		return ver, false, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || strings.TrimLeft(p, "0123456789") != "" || (len(p) > 1 && p[0] == '0') {
			return ver, false, false
		}
		ver[i] = n
	}
	return ver, hasPre, true
}

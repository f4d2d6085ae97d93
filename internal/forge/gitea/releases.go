package gitea

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
)

// Download is one runner binary of a release.
type Download struct {
	OS           string // linux, windows, ...
	Architecture string // amd64, arm64, arm-7, ...
	Filename     string
	DownloadURL  string
}

type releaseJSON struct {
	TagName string `json:"tag_name"`
	Assets  []struct {
		Name string `json:"name"`
		URL  string `json:"browser_download_url"`
	} `json:"assets"`
}

// RunnerDownloads lists the runner binaries of the newest release at toolsURL, a releases
// API URL in Gitea's shape (the endpoint's tools_metadata_url, by default gitea.com's
// runner releases). Checksum and archive assets are skipped.
func (c *Client) RunnerDownloads(ctx context.Context, toolsURL string) ([]Download, error) {
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
	if resp.StatusCode != http.StatusOK {
		return nil, garrison.Errorf(garrison.EInternal, "gitea: runner releases at %s: HTTP %d", toolsURL, resp.StatusCode)
	}
	var rels []releaseJSON
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&rels); err != nil {
		return nil, fmt.Errorf("gitea: runner releases: %w", err)
	}
	if len(rels) == 0 {
		return nil, garrison.Errorf(garrison.ENotFound, "gitea: no runner release at %s", toolsURL)
	}
	return parseAssets(rels[0]), nil
}

// parseAssets maps act_runner-<version>-<os>-<arch>[.exe] assets to downloads.
func parseAssets(rel releaseJSON) []Download {
	version := strings.TrimPrefix(rel.TagName, "v")
	var out []Download
	for _, a := range rel.Assets {
		rest, ok := strings.CutPrefix(a.Name, "act_runner-"+version+"-")
		if !ok || strings.HasSuffix(rest, ".sha256") || strings.HasSuffix(rest, ".xz") {
			continue
		}
		rest = strings.TrimSuffix(rest, ".exe")
		os, arch, ok := strings.Cut(rest, "-")
		if !ok {
			continue
		}
		out = append(out, Download{OS: os, Architecture: arch, Filename: a.Name, DownloadURL: a.URL})
	}
	return out
}

package github

import (
	"context"
	"time"

	gh "github.com/google/go-github/v90/github"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

type cachedDownloads struct {
	list    []provider.RunnerApplicationDownload
	fetched time.Time
}

// RunnerDownloads lists the runner packages for the entity, cached for Options.DownloadsTTL,
// in the shape providers receive them. On GHES, TempDownloadToken is sent as
// "Authorization: Bearer" when downloading.
func (c *Client) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	key := string(e.Type) + "/" + e.FullName()
	now := c.rt.clock.Now()
	c.mu.Lock()
	cd, ok := c.downloads[key]
	c.mu.Unlock()
	if ok && now.Sub(cd.fetched) < c.ttl {
		return cd.list, nil
	}
	var ds []*gh.RunnerApplicationDownload
	var err error
	switch e.Type {
	case garrison.Repository:
		ds, _, err = c.gh.Actions.ListRunnerApplicationDownloads(ctx, e.Owner, e.Name)
	case garrison.Organization:
		ds, _, err = c.gh.Actions.ListOrganizationRunnerApplicationDownloads(ctx, e.Name)
	case garrison.Enterprise:
		ds, _, err = c.gh.Enterprise.ListRunnerApplicationDownloads(ctx, e.Name)
	default:
		return nil, errUnsupported("runner downloads", e)
	}
	if err != nil {
		return nil, wrap("list runner downloads", err)
	}
	list := make([]provider.RunnerApplicationDownload, 0, len(ds))
	for _, d := range ds {
		list = append(list, provider.RunnerApplicationDownload{
			OS: d.GetOS(), Architecture: d.GetArchitecture(), Filename: d.GetFilename(),
			DownloadURL: d.GetDownloadURL(), TempDownloadToken: d.GetTempDownloadToken(), SHA256Checksum: d.GetSHA256Checksum(),
		})
	}
	c.mu.Lock()
	c.downloads[key] = cachedDownloads{list: list, fetched: now}
	c.mu.Unlock()
	return list, nil
}

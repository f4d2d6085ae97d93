package gitea_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// startReleasesSim starts a simulator and returns it and its URL.
func startReleasesSim(t *testing.T) (*forgesim.Sim, string) {
	t.Helper()
	sim := forgesim.New(forgesim.Options{})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sim.AddToken("tok")
	return sim, url
}

// toolsClient returns a client of the simulator at url whose runner releases are at tools.
func toolsClient(t *testing.T, url, tools string, o gitea.Options) *gitea.Client {
	t.Helper()
	c, err := gitea.New(garrison.Endpoint{Name: "g", Type: garrison.Gitea, BaseURL: url, APIBaseURL: url + "/api/v1",
		ToolsMetadataURL: tools}, garrison.Credentials{Name: "c", PAT: "tok"}, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const releasesPath = "/api/v1/repos/gitea/runner/releases"

func TestRunnerDownloadsFromTheReleasesAPI(t *testing.T) {
	_, url := startReleasesSim(t)
	c := toolsClient(t, url, url+releasesPath, gitea.Options{})
	ds, err := c.RunnerDownloads(t.Context(), org)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range ds {
		got[d.OS+"/"+d.Architecture] = d.DownloadURL
	}
	want := "gitea-runner-" + forgesim.GiteaRunnerVersion + "-linux-amd64"
	if got["linux/amd64"] != url+"/_sim/downloads/"+want || got["windows/amd64"] == "" || got["linux/arm64"] == "" || got["linux/arm"] == "" {
		t.Errorf("downloads %v", got)
	}
	if len(ds) != 4 {
		t.Errorf("%d downloads, want 4 (.xz and .sha256 skipped): %+v", len(ds), ds)
	}
	for _, bad := range []string{"ftp://x/y", url + "/nope"} {
		if _, err := toolsClient(t, url, bad, gitea.Options{}).RunnerDownloads(t.Context(), org); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestRunnerDownloadsAreCached checks that the release list is fetched once per TTL,
// whatever the entity: a new release shows only once the TTL passed.
func TestRunnerDownloadsAreCached(t *testing.T) {
	sim, url := startReleasesSim(t)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := toolsClient(t, url, url+releasesPath, gitea.Options{DownloadsTTL: time.Hour, Now: func() time.Time { return now }})
	linuxAMD64 := func(e garrison.Entity) string {
		ds, err := c.RunnerDownloads(t.Context(), e)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.OS == "linux" && d.Architecture == "amd64" {
				return d.Filename
			}
		}
		t.Fatalf("no linux/amd64 download in %+v", ds)
		return ""
	}
	first := linuxAMD64(org)
	sim.SetGiteaReleases([]forgesim.GiteaRelease{{Tag: "v9.0.0", Assets: []string{"gitea-runner-9.0.0-linux-amd64"}}})
	now = now.Add(59 * time.Minute)
	if got := linuxAMD64(garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app"}); got != first {
		t.Fatalf("within the TTL: %s, want the cached %s", got, first)
	}
	now = now.Add(time.Minute)
	if got := linuxAMD64(org); got != "gitea-runner-9.0.0-linux-amd64" {
		t.Fatalf("after the TTL: %s, want the new release", got)
	}
}

// TestRunnerDownloadsPicksAUsableRelease checks the release choice: the first release
// (newest first) of v0.2.12 or newer that has runner binaries, under either asset prefix.
func TestRunnerDownloadsPicksAUsableRelease(t *testing.T) {
	tests := []struct {
		name     string
		releases []forgesim.GiteaRelease
		want     string // file name of the linux/amd64 download; "" for a not-found error
	}{
		{"gitea-runner names", []forgesim.GiteaRelease{
			{Tag: "v0.3.1", Assets: []string{"gitea-runner-0.3.1-linux-amd64.xz", "gitea-runner-0.3.1-linux-amd64.sha256", "gitea-runner-0.3.1-linux-amd64"}},
		}, "gitea-runner-0.3.1-linux-amd64"},
		{"act_runner names at the minimum", []forgesim.GiteaRelease{
			{Tag: "v0.2.12", Assets: []string{"act_runner-0.2.12-linux-amd64"}},
		}, "act_runner-0.2.12-linux-amd64"},
		{"newest without binaries is passed over", []forgesim.GiteaRelease{
			{Tag: "v0.4.0", Assets: []string{"gitea-runner-0.4.0-linux-amd64.xz", "source.tar.gz"}},
			{Tag: "v0.3.0", Assets: []string{"gitea-runner-0.3.0-linux-amd64"}},
		}, "gitea-runner-0.3.0-linux-amd64"},
		{"too old", []forgesim.GiteaRelease{
			{Tag: "v0.2.11", Assets: []string{"act_runner-0.2.11-linux-amd64"}},
		}, ""},
		{"pre-release of the minimum", []forgesim.GiteaRelease{
			{Tag: "v0.2.12-rc1", Assets: []string{"act_runner-0.2.12-rc1-linux-amd64"}},
		}, ""},
		{"no releases", []forgesim.GiteaRelease{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim, url := startReleasesSim(t)
			sim.SetGiteaReleases(tt.releases)
			ds, err := toolsClient(t, url, url+releasesPath, gitea.Options{}).RunnerDownloads(t.Context(), org)
			if tt.want == "" {
				if !errors.Is(err, garrison.ErrNotFound) || !strings.Contains(err.Error(), url) {
					t.Fatalf("err %v, want a not-found error naming the URL", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				if d.OS == "linux" && d.Architecture == "amd64" {
					if d.Filename != tt.want {
						t.Errorf("linux/amd64 is %s, want %s", d.Filename, tt.want)
					}
					return
				}
			}
			t.Errorf("no linux/amd64 download in %+v", ds)
		})
	}
}

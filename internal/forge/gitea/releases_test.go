package gitea_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// newReleasesClient starts a simulator and returns a client of it and its URL.
func newReleasesClient(t *testing.T) (*forgesim.Sim, *gitea.Client, string) {
	t.Helper()
	sim := forgesim.New(forgesim.Options{})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sim.AddToken("tok")
	c, err := gitea.New(garrison.Endpoint{Name: "g", Type: garrison.Gitea, BaseURL: url, APIBaseURL: url + "/api/v1"},
		garrison.Credentials{Name: "c", PAT: "tok"}, gitea.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sim, c, url
}

func TestRunnerDownloadsFromTheReleasesAPI(t *testing.T) {
	_, c, url := newReleasesClient(t)
	ds, err := c.RunnerDownloads(t.Context(), url+"/api/v1/repos/gitea/runner/releases")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range ds {
		got[d.OS+"/"+d.Architecture] = d.DownloadURL
	}
	want := "gitea-runner-" + forgesim.GiteaRunnerVersion + "-linux-amd64"
	if got["linux/amd64"] != url+"/_sim/downloads/"+want || got["windows/amd64"] == "" || got["linux/arm64"] == "" || got["linux/arm-7"] == "" {
		t.Errorf("downloads %v", got)
	}
	if len(ds) != 4 {
		t.Errorf("%d downloads, want 4 (.xz and .sha256 skipped): %+v", len(ds), ds)
	}
	for _, bad := range []string{"ftp://x/y", url + "/nope"} {
		if _, err := c.RunnerDownloads(t.Context(), bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
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
			sim, c, url := newReleasesClient(t)
			sim.SetGiteaReleases(tt.releases)
			ds, err := c.RunnerDownloads(t.Context(), url+"/api/v1/repos/gitea/runner/releases")
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

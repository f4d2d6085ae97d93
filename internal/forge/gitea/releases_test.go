package gitea_test

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

func TestRunnerDownloadsFromTheReleasesAPI(t *testing.T) {
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
	ds, err := c.RunnerDownloads(t.Context(), url+"/api/v1/repos/gitea/runner/releases")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range ds {
		got[d.OS+"/"+d.Architecture] = d.DownloadURL
	}
	want := "act_runner-" + forgesim.GiteaRunnerVersion + "-linux-amd64"
	if got["linux/amd64"] != url+"/_sim/downloads/"+want || got["windows/amd64"] == "" || got["linux/arm64"] == "" {
		t.Errorf("downloads %v", got)
	}
	for _, bad := range []string{"ftp://x/y", url + "/nope"} {
		if _, err := c.RunnerDownloads(t.Context(), bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

package garrison_test

import (
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestRunPageURL(t *testing.T) {
	tests := []struct {
		name, job, repo string
		run             int64
		want            string
	}{
		{"GitHub job page", "https://github.com/octo-org/octo-repo/actions/runs/2202229078/job/289782451",
			"https://github.com/octo-org/octo-repo", 2202229078, "https://github.com/octo-org/octo-repo/actions/runs/2202229078"},
		{"Gitea job page under a sub-path", "http://127.0.0.1:3000/git/org1/repo1/actions/runs/3/jobs/7",
			"", 41, "http://127.0.0.1:3000/git/org1/repo1/actions/runs/3"},
		{"run page itself", "https://ghes.example.com/o/r/actions/runs/12", "", 0, "https://ghes.example.com/o/r/actions/runs/12"},
		{"no job page: the repository's page", "", "https://github.com/o/r/", 5, "https://github.com/o/r/actions/runs/5"},
		{"job page without a run number", "https://github.com/o/r/actions/runs/x/job/1", "https://github.com/o/r", 5,
			"https://github.com/o/r/actions/runs/5"},
		{"job page with a malformed run", "https://github.com/o/r/actions/runs/12x/job/1", "", 0, ""},
		{"not http", "javascript:alert(1)/actions/runs/1", "ftp://example.com/o/r", 1, ""},
		{"API URL is not a page", "", "", 9, ""},
		{"no run id", "", "https://github.com/o/r", 0, ""},
		{"negative run id", "", "https://github.com/o/r", -5, ""},
		{"run page with a trailing slash", "https://github.com/o/r/actions/runs/12/", "", 0, "https://github.com/o/r/actions/runs/12"},
		{"job page preferred over the repository", "https://github.com/o/r/actions/runs/12/job/1", "https://github.com/o/other", 99,
			"https://github.com/o/r/actions/runs/12"},
		{"runs path with nothing before it", "/actions/runs/12/job/1", "https://github.com/o/r", 12, "https://github.com/o/r/actions/runs/12"},
		{"relative job page", "o/r/actions/runs/12/job/1", "", 12, ""},
		{"job page without a number after runs", "https://github.com/o/r/actions/runs/", "", 0, ""},
		{"repository named runs, found through its page", "https://github.com/actions/runs/actions/runs/12/job/1",
			"https://github.com/actions/runs", 12, "https://github.com/actions/runs/actions/runs/12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := garrison.RunPageURL(tt.job, tt.repo, tt.run); got != tt.want {
				t.Fatalf("RunPageURL(%q, %q, %d) = %q, want %q", tt.job, tt.repo, tt.run, got, tt.want)
			}
		})
	}
}

package garrison_test

import (
	"strconv"
	"strings"
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
		{"repository of owner actions named runs", "https://github.com/actions/runs/actions/runs/12/job/1", "", 12,
			"https://github.com/actions/runs/actions/runs/12"},
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

// FuzzRunPageURL checks that any input gives "", a prefix of the job's page ending in a
// run number, or the repository's page followed by the run id.
func FuzzRunPageURL(f *testing.F) {
	f.Add("https://github.com/o/r/actions/runs/12/job/1", "https://github.com/o/r", int64(12))
	f.Add("https://github.com/actions/runs/actions/runs/12/job/1", "", int64(0))
	f.Add("/actions/runs//actions/runs/1", "http://x/", int64(-1))
	f.Fuzz(func(t *testing.T, job, repo string, run int64) {
		got := garrison.RunPageURL(job, repo, run)
		if got == "" {
			return
		}
		fromRepo := strings.TrimRight(repo, "/") + "/actions/runs/" + strconv.FormatInt(run, 10)
		page, num, ok := cutLast(got, "/actions/runs/")
		switch {
		case !ok || !garrison.ValidURL(page) || num == "" || strings.Trim(num, "0123456789") != "":
			t.Fatalf("RunPageURL(%q, %q, %d) = %q: not <page>/actions/runs/<number>", job, repo, run, got)
		case !strings.HasPrefix(job, got) && got != fromRepo:
			t.Fatalf("RunPageURL(%q, %q, %d) = %q: neither the job's page nor the repository's", job, repo, run, got)
		}
	})
}

// cutLast slices s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

package webhook

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

const githubBody = `{"action": "in_progress",
 "workflow_job": {"id": 289782451, "run_id": 2202229078, "run_attempt": 1, "status": "in_progress", "conclusion": null,
   "created_at": "2021-08-05T10:34:50Z", "started_at": "2021-08-05T10:34:58Z", "completed_at": null, "name": "linters",
   "workflow_name": "CI", "html_url": "https://github.com/octo-org/octo-repo/actions/runs/2202229078/job/289782451",
   "run_url": "https://api.github.com/repos/octo-org/octo-repo/actions/runs/2202229078",
   "labels": ["self-hosted", "linux"], "runner_id": 5, "runner_name": "garm-abc123", "runner_group_id": 1, "runner_group_name": "Default"},
 "repository": {"name": "octo-repo", "full_name": "octo-org/octo-repo", "owner": {"login": "octo-org"}},
 "organization": {"login": "octo-org", "id": 38302899},
 "enterprise": {"slug": "octo-ent"}, "sender": {"login": "octocat", "id": 1}}`

const giteaQueuedBody = `{"action": "queued",
 "workflow_job": {"id": 7, "run_id": 3, "status": "queued", "name": "build", "steps": [],
   "html_url": "http://127.0.0.1:3000/org1/repo1/actions/runs/3/jobs/7",
   "run_url": "http://127.0.0.1:3000/api/v1/repos/org1/repo1/actions/runs/3",
   "created_at": "2025-01-02T03:04:05Z", "started_at": "1970-01-01T00:00:00Z", "completed_at": "1970-01-01T00:00:00Z",
   "labels": ["ubuntu-latest"]},
 "repository": {"name": "repo1", "owner": {"login": "org1", "username": "org1"}},
 "organization": {"id": 3, "name": "org1", "username": "org1", "full_name": ""}}`

func githubHeaders(target string) http.Header {
	h := http.Header{}
	h.Set(HeaderGitHubEvent, EventWorkflowJob)
	h.Set(HeaderGitHubDelivery, "d-1")
	h.Set(HeaderGitHubHookID, "42")
	if target != "" {
		h.Set(HeaderGitHubTargetType, target)
	}
	return h
}

func giteaHeaders(target string) http.Header {
	h := githubHeaders(target)
	h.Set(HeaderGiteaEvent, EventWorkflowJob)
	h.Set(HeaderGiteaTargetType, target)
	return h
}

func TestParseGitHub(t *testing.T) {
	ev, err := Parse(githubHeaders(TargetRepository), []byte(githubBody))
	if err != nil {
		t.Fatal(err)
	}
	want := Event{
		Meta:    Meta{Event: EventWorkflowJob, Forge: garrison.GitHub, TargetType: TargetRepository, DeliveryID: "d-1", HookID: "42"},
		Action:  "in_progress",
		BaseURL: "https://github.com", EntityOwner: "octo-org", EntityName: "octo-repo",
		RepoOwner: "octo-org", RepoName: "octo-repo",
		JobID: 289782451, RunID: 2202229078, RunAttempt: 1, Name: "linters", WorkflowName: "CI",
		Status: "in_progress", Labels: []string{"self-hosted", "linux"},
		RunnerID: 5, RunnerName: "garm-abc123", RunnerGroupID: 1, RunnerGroupName: "Default",
		HTMLURL:    "https://github.com/octo-org/octo-repo/actions/runs/2202229078/job/289782451",
		RunURL:     "https://api.github.com/repos/octo-org/octo-repo/actions/runs/2202229078",
		RunPageURL: "https://github.com/octo-org/octo-repo/actions/runs/2202229078",
		CreatedAt:  time.Date(2021, 8, 5, 10, 34, 50, 0, time.UTC),
		StartedAt:  time.Date(2021, 8, 5, 10, 34, 58, 0, time.UTC),
	}
	if !equalEvent(*ev, want) {
		t.Fatalf("got  %+v\nwant %+v", *ev, want)
	}
	j := ev.Job()
	if j.ID != want.JobID || j.Action != garrison.JobInProgress || j.WorkflowRunURL != want.RunPageURL || j.RepositoryOwner != "octo-org" {
		t.Fatalf("Job() = %+v", j)
	}
}

func equalEvent(a, b Event) bool {
	return slices.Equal(a.Labels, b.Labels) && fmt.Sprint(a) == fmt.Sprint(b)
}

func TestParseGitea(t *testing.T) {
	ev, err := Parse(giteaHeaders(TargetOrganization), []byte(giteaQueuedBody))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Forge != garrison.Gitea || ev.TargetType != TargetOrganization || ev.EntityName != "org1" || ev.EntityOwner != "" {
		t.Fatalf("entity: %+v", ev.Meta)
	}
	if ev.BaseURL != "http://127.0.0.1:3000" || ev.RunnerID != 0 || ev.RunnerName != "" || ev.Conclusion != "" {
		t.Fatalf("fields: %+v", ev)
	}
	if !ev.StartedAt.IsZero() || !ev.CompletedAt.IsZero() || ev.CreatedAt.IsZero() {
		t.Fatalf("epoch placeholders not zeroed: %v %v", ev.StartedAt, ev.CompletedAt)
	}
	if want := "http://127.0.0.1:3000/org1/repo1/actions/runs/3"; ev.RunPageURL != want || ev.Job().WorkflowRunURL != want {
		t.Fatalf("run page %q, job's workflow run URL %q, want %q", ev.RunPageURL, ev.Job().WorkflowRunURL, want)
	}
}

func TestParseTargets(t *testing.T) {
	tests := []struct {
		name       string
		h          http.Header
		owner, ent string
		wantErr    error
		targetErr  bool
	}{
		{"github repository", githubHeaders(TargetRepository), "octo-org", "octo-repo", nil, false},
		{"github organization", githubHeaders(TargetOrganization), "", "octo-org", nil, false},
		{"github business", githubHeaders(TargetBusiness), "", "octo-ent", nil, false},
		{"github system", githubHeaders(TargetSystem), "", "", nil, true},
		{"gitea system", giteaHeaders(TargetSystem), "", "", nil, false},
		{"missing target", githubHeaders(""), "", "", nil, true},
		{"integration", githubHeaders("integration"), "", "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Parse(tt.h, []byte(githubBody))
			var te *TargetTypeError
			if tt.targetErr {
				if !errors.As(err, &te) || garrison.CodeOf(err) != garrison.EInvalid {
					t.Fatalf("err = %v, want TargetTypeError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.EntityOwner != tt.owner || ev.EntityName != tt.ent {
				t.Fatalf("entity = %q/%q", ev.EntityOwner, ev.EntityName)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	ping := githubHeaders(TargetRepository)
	ping.Set(HeaderGitHubEvent, EventPing)
	tests := []struct {
		name string
		h    http.Header
		body string
		want error
	}{
		{"empty body", githubHeaders(TargetRepository), "  ", ErrMissingJobData},
		{"not json", githubHeaders(TargetRepository), "payload=%7B%7D", ErrInvalidJSON},
		{"no workflow_job", githubHeaders(TargetRepository), `{"action":"queued"}`, ErrMissingField},
		{"no job id", githubHeaders(TargetRepository), `{"workflow_job":{"html_url":"https://x"},"repository":{"name":"r","owner":{"login":"o"}}}`, ErrMissingField},
		{"no repository", githubHeaders(TargetRepository), `{"workflow_job":{"id":1}}`, ErrMissingField},
		{"no organization", githubHeaders(TargetOrganization), `{"workflow_job":{"id":1}}`, ErrMissingField},
		{"no enterprise", githubHeaders(TargetBusiness), `{"workflow_job":{"id":1}}`, ErrMissingField},
		{"negative job id", githubHeaders(TargetRepository), `{"workflow_job":{"id":-1},"repository":{"name":"r","owner":{"login":"o"}}}`, ErrInvalidField},
		{"most negative job id", githubHeaders(TargetRepository), `{"workflow_job":{"id":-9223372036854775808},"repository":{"name":"r","owner":{"login":"o"}}}`, ErrInvalidField},
		{"negative job id, Gitea", giteaHeaders(TargetOrganization), `{"workflow_job":{"id":-7},"organization":{"name":"org1"}}`, ErrInvalidField},
		{"zero job id", githubHeaders(TargetRepository), `{"workflow_job":{"id":0},"repository":{"name":"r","owner":{"login":"o"}}}`, ErrMissingField},
		{"wrong types", githubHeaders(TargetRepository), `{"workflow_job":{"id":"x"}}`, ErrInvalidJSON},
		{"ping", ping, `{"zen":"x"}`, ErrIgnoredEvent},
		{"unknown event", http.Header{HeaderGitHubEvent: {"push"}}, `{}`, ErrIgnoredEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.h, []byte(tt.body))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(githubBody), TargetRepository, false)
	f.Add([]byte(giteaQueuedBody), TargetOrganization, true)
	f.Add([]byte(githubBody), TargetBusiness, false)
	f.Add([]byte(`{"workflow_job":null}`), TargetSystem, true)
	f.Add([]byte(`[]`), "", false)
	f.Add([]byte(`{"workflow_job":{"id":1,"html_url":"::"}}`), TargetOrganization, false)
	f.Add([]byte(`{"workflow_job":{"id":-5},"organization":{"login":"o"}}`), TargetOrganization, false)
	f.Fuzz(func(t *testing.T, body []byte, target string, gitea bool) {
		h := githubHeaders(target)
		if gitea {
			h = giteaHeaders(target)
		}
		ev, err := Parse(h, body)
		if err != nil {
			if garrison.CodeOf(err) == garrison.EInternal {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if ev.JobID <= 0 {
			t.Fatalf("parsed an event with job id %d", ev.JobID)
		}
	})
}

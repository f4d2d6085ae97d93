package webhook

import (
	"time"

	"github.com/garrison-ci/garrison"
)

// payload is the subset of a workflow_job body garrison reads. Pointers and zero values
// absorb the forge differences: Gitea omits runner fields and conclusion while queued and
// its organization has no login.
type payload struct {
	Action       string      `json:"action"`
	Job          *jobPayload `json:"workflow_job"`
	Repository   repoPayload `json:"repository"`
	Organization orgPayload  `json:"organization"`
	Enterprise   entPayload  `json:"enterprise"`
}

type jobPayload struct {
	ID              int64    `json:"id"`
	RunID           int64    `json:"run_id"`
	RunAttempt      int64    `json:"run_attempt"`
	RunURL          string   `json:"run_url"`
	HTMLURL         string   `json:"html_url"`
	Status          string   `json:"status"`
	Conclusion      *string  `json:"conclusion"`
	Name            string   `json:"name"`
	WorkflowName    string   `json:"workflow_name"`
	Labels          []string `json:"labels"`
	RunnerID        *int64   `json:"runner_id"`
	RunnerName      *string  `json:"runner_name"`
	RunnerGroupID   *int64   `json:"runner_group_id"`
	RunnerGroupName *string  `json:"runner_group_name"`
	CreatedAt       *string  `json:"created_at"`
	StartedAt       *string  `json:"started_at"`
	CompletedAt     *string  `json:"completed_at"`
}

type repoPayload struct {
	Name    string `json:"name"`
	HTMLURL string `json:"html_url"`
	Owner   struct {
		Login    string `json:"login"`
		Username string `json:"username"` // Gitea also sends login; kept as a fallback
	} `json:"owner"`
}

type orgPayload struct {
	Login    string `json:"login"`
	Name     string `json:"name"`
	Username string `json:"username"`
}

type entPayload struct {
	Slug string `json:"slug"`
}

// login returns the organization's name as the forge identifies it: login on GitHub,
// name (else username) on Gitea, which has no login (W-7).
func (o orgPayload) login(f garrison.ForgeType) string {
	if f == garrison.Gitea {
		return firstNonEmpty(o.Name, o.Username, o.Login)
	}
	return o.Login
}

func (p *payload) event(m Meta) *Event {
	j := p.Job
	return &Event{
		Meta:            m,
		Action:          p.Action,
		BaseURL:         schemeHost(j.HTMLURL),
		RepoOwner:       firstNonEmpty(p.Repository.Owner.Login, p.Repository.Owner.Username),
		RepoName:        p.Repository.Name,
		JobID:           j.ID,
		RunID:           j.RunID,
		RunAttempt:      j.RunAttempt,
		Name:            j.Name,
		WorkflowName:    j.WorkflowName,
		Status:          j.Status,
		Conclusion:      deref(j.Conclusion),
		Labels:          j.Labels,
		RunnerID:        deref(j.RunnerID),
		RunnerName:      deref(j.RunnerName),
		RunnerGroupID:   deref(j.RunnerGroupID),
		RunnerGroupName: deref(j.RunnerGroupName),
		HTMLURL:         j.HTMLURL,
		RunURL:          j.RunURL,
		RunPageURL:      garrison.RunPageURL(j.HTMLURL, p.Repository.HTMLURL, j.RunID),
		CreatedAt:       parseTime(j.CreatedAt),
		StartedAt:       parseTime(j.StartedAt),
		CompletedAt:     parseTime(j.CompletedAt),
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// parseTime reads an RFC 3339 timestamp. Absent, unparsable values and Gitea's Unix epoch
// placeholder ("1970-01-01T00:00:00Z" before a job starts) give the zero time.
func parseTime(s *string) time.Time {
	if s == nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil || t.Unix() == 0 {
		return time.Time{}
	}
	return t.UTC()
}

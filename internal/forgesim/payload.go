package forgesim

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// jobObject renders a job as GitHub's workflow_job (also the jobs API object).
func (s *Sim) ghJobObjectLocked(j *job) map[string]any {
	base := s.baseOrPlaceholderLocked()
	full := j.repo.fullName()
	m := map[string]any{
		"id": j.id, "run_id": j.runID, "run_attempt": 1, "node_id": fmt.Sprintf("CR_%d", j.id),
		"head_sha": "0000000000000000000000000000000000000000", "head_branch": "main",
		"url":           fmt.Sprintf("%s/repos/%s/actions/jobs/%d", base, full, j.id),
		"run_url":       fmt.Sprintf("%s/repos/%s/actions/runs/%d", base, full, j.runID),
		"html_url":      fmt.Sprintf("%s/%s/actions/runs/%d/job/%d", base, full, j.runID, j.id),
		"check_run_url": fmt.Sprintf("%s/repos/%s/check-runs/%d", base, full, j.id),
		"status":        j.status, "conclusion": nilIfEmpty(j.conclusion),
		"created_at": j.createdAt.Format(time.RFC3339), "started_at": timeOrNil(j.startedAt),
		"completed_at": timeOrNil(j.completedAt), "name": j.name, "workflow_name": "CI",
		"steps": []any{}, "labels": j.labels,
		"runner_id": nil, "runner_name": nil, "runner_group_id": nil, "runner_group_name": nil,
	}
	if j.runnerID != 0 && j.status != "queued" {
		m["runner_id"], m["runner_name"] = j.runnerID, j.runnerName
		m["runner_group_id"], m["runner_group_name"] = j.groupID, j.groupName
	}
	return m
}

// giteaJobObjectLocked renders a job as Gitea does: no runner fields or conclusion until
// they exist, epoch placeholders for unset times, URLs under /api/v1.
func (s *Sim) giteaJobObjectLocked(j *job) map[string]any {
	base := s.baseOrPlaceholderLocked()
	full := j.repo.fullName()
	epoch := func(t time.Time) string {
		if t.IsZero() {
			return "1970-01-01T00:00:00Z"
		}
		return t.Format(time.RFC3339)
	}
	m := map[string]any{
		"id": j.id, "run_id": j.runID, "run_attempt": 1, "head_sha": "0000000000000000000000000000000000000000",
		"head_branch": "main", "name": j.name, "labels": j.labels, "steps": []any{}, "status": j.status,
		"url":        fmt.Sprintf("%s/api/v1/repos/%s/actions/jobs/%d", base, full, j.id),
		"run_url":    fmt.Sprintf("%s/api/v1/repos/%s/actions/runs/%d", base, full, j.runID),
		"html_url":   fmt.Sprintf("%s/%s/actions/runs/%d/jobs/%d", base, full, j.runID, j.id),
		"created_at": epoch(j.createdAt), "started_at": epoch(j.startedAt), "completed_at": epoch(j.completedAt),
	}
	if j.conclusion != "" {
		m["conclusion"] = j.conclusion
	}
	if j.runnerID != 0 && j.status != "queued" {
		m["runner_id"], m["runner_name"] = j.runnerID, j.runnerName
	}
	return m
}

func (s *Sim) baseOrPlaceholderLocked() string {
	if s.baseURL != "" {
		return s.baseURL
	}
	return "http://forgesim.invalid"
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Format(time.RFC3339)
}

// workflowJobPayloadLocked builds the body of a workflow_job delivery for a hook.
func (s *Sim) workflowJobPayloadLocked(h *hook, j *job, action string) []byte {
	rp := j.repo
	owner := map[string]any{"login": rp.owner, "id": 1}
	p := map[string]any{
		"action": action,
		"repository": map[string]any{
			"id": rp.id, "name": rp.name, "full_name": rp.fullName(), "owner": owner,
			"html_url": s.baseOrPlaceholderLocked() + "/" + rp.fullName(),
		},
		"sender": map[string]any{"login": "forgesim", "id": 1},
	}
	o := s.st.orgs[strings.ToLower(rp.owner)]
	if h.forge == garrison.Gitea {
		owner["username"] = rp.owner
		p["workflow_job"] = s.giteaJobObjectLocked(j)
		if o != nil {
			p["organization"] = map[string]any{"id": o.id, "name": o.name, "username": o.name, "full_name": ""}
		}
	} else {
		p["workflow_job"] = s.ghJobObjectLocked(j)
		if o != nil {
			p["organization"] = map[string]any{"login": o.name, "id": o.id}
			if e := s.st.enterprises[o.enterprise]; e != nil {
				p["enterprise"] = map[string]any{"id": e.id, "slug": e.slug, "name": e.slug}
			}
		}
	}
	b, _ := json.Marshal(p)
	return b
}

// pingPayloadLocked builds the body of a GitHub ping delivery.
func pingPayload(h *hook) []byte {
	b, _ := json.Marshal(map[string]any{
		"zen": "Keep it logically awesome.", "hook_id": h.id,
		"hook": map[string]any{"type": hookType(h), "id": h.id, "name": "web", "active": h.active, "events": h.events},
	})
	return b
}

// testPushPayload builds the body of the synthetic push a Gitea hook test delivers.
func testPushPayload(h *hook) []byte {
	b, _ := json.Marshal(map[string]any{"ref": "refs/heads/main", "before": "", "after": "", "commits": []any{},
		"hook_id": h.id})
	return b
}

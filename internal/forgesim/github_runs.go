package forgesim

import (
	"fmt"
	"net/http"
	"time"
)

func (s *Sim) githubRunRoutes() {
	s.github("GET /repos/{owner}/{repo}/actions/runs", s.ghListRuns)
	s.github("GET /repos/{owner}/{repo}/actions/runs/{id}/jobs", s.ghListRunJobs)
	s.github("GET /repos/{owner}/{repo}/actions/jobs/{id}", s.ghGetJob)
	s.github("POST /app/installations/{id}/access_tokens", s.installationToken)
	s.github("GET /rate_limit", s.rateLimitRoute)
}

func (s *Sim) ghRunJSONLocked(ru *run) map[string]any {
	status, conclusion := s.st.runStatusLocked(ru)
	base, full := s.baseOrPlaceholderLocked(), ru.repo.fullName()
	created := s.st.jobs[ru.jobIDs[0]].createdAt.Format(time.RFC3339)
	return map[string]any{
		"id": ru.id, "name": ru.name, "status": status, "conclusion": nilIfEmpty(conclusion),
		"run_attempt": 1, "event": "push", "head_branch": "main", "created_at": created, "updated_at": created,
		"url":      fmt.Sprintf("%s/repos/%s/actions/runs/%d", base, full, ru.id),
		"jobs_url": fmt.Sprintf("%s/repos/%s/actions/runs/%d/jobs", base, full, ru.id),
		"html_url": fmt.Sprintf("%s/%s/actions/runs/%d", base, full, ru.id),
		"repository": map[string]any{"id": ru.repo.id, "name": ru.repo.name, "full_name": full,
			"owner": map[string]any{"login": ru.repo.owner}},
	}
}

// ghListRuns serves the runs of a repository, newest first, filtered by status or
// conclusion.
func (s *Sim) ghListRuns(r *http.Request, _ principal) reply {
	sc, want := scopeOf(r), r.URL.Query().Get("status")
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.st.repoLocked(sc.name)
	if rp == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	ids := sortedIDs(s.st.runs)
	var all []map[string]any
	for i := len(ids) - 1; i >= 0; i-- {
		ru := s.st.runs[ids[i]]
		status, conclusion := s.st.runStatusLocked(ru)
		if ru.repo != rp || (want != "" && want != status && want != conclusion) {
			continue
		}
		all = append(all, s.ghRunJSONLocked(ru))
	}
	pg, link := page(r, all, "per_page", 30, 100)
	return withLink(ok(http.StatusOK, map[string]any{"total_count": len(all), "workflow_runs": nonNil(pg)}), link)
}

func (s *Sim) ghListRunJobs(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	ru := s.st.runs[pathID(r, "id")]
	if ru == nil || ru.repo != s.st.repoLocked(sc.name) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	var all []map[string]any
	for _, id := range ru.jobIDs {
		all = append(all, s.ghJobObjectLocked(s.st.jobs[id]))
	}
	pg, link := page(r, all, "per_page", 30, 100)
	return withLink(ok(http.StatusOK, map[string]any{"total_count": len(all), "jobs": nonNil(pg)}), link)
}

func (s *Sim) ghGetJob(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.st.jobs[pathID(r, "id")]
	if j == nil || j.repo != s.st.repoLocked(sc.name) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, s.ghJobObjectLocked(j))
}

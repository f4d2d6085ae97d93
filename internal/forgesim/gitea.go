package forgesim

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// giteaScopes are the Gitea scopes for runners and tokens (under /api/v1).
var giteaScopes = []string{"/repos/{owner}/{repo}", "/orgs/{org}", "/admin"}

func (s *Sim) giteaRoutes() {
	for _, sc := range giteaScopes {
		s.gitea("POST "+sc+"/actions/runners/registration-token", s.giteaRegistrationToken)
		s.gitea("GET "+sc+"/actions/runners", s.giteaListRunners)
		s.gitea("GET "+sc+"/actions/runners/{id}", s.giteaGetRunner)
		s.gitea("DELETE "+sc+"/actions/runners/{id}", s.giteaDeleteRunner)
		s.gitea("GET "+sc+"/actions/jobs", s.giteaListJobs)
		s.gitea("GET "+sc+"/hooks", s.giteaListHooks)
		s.gitea("POST "+sc+"/hooks", s.giteaCreateHook)
		s.gitea("GET "+sc+"/hooks/{id}", s.giteaGetHook)
		s.gitea("DELETE "+sc+"/hooks/{id}", s.giteaDeleteHook)
	}
	s.gitea("POST /repos/{owner}/{repo}/hooks/{id}/tests", s.giteaTestHook)
	s.mux.HandleFunc("POST /api/actions/runner.v1.RunnerService/Register", s.giteaRegisterRPC)
	s.mux.HandleFunc("GET "+giteaReleasePath, s.giteaReleases)
}

// giteaRegistrationToken returns the scope's one registration token (200), creating it
// on first use.
func (s *Sim) giteaRegistrationToken(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return giteaError(http.StatusNotFound, "GetRepositoryByName")
	}
	tok := s.st.giteaTokens[sc.key()]
	if tok == "" {
		tok = randomHex(20)
		s.st.giteaTokens[sc.key()] = tok
	}
	return ok(http.StatusOK, map[string]string{"token": tok})
}

func giteaRunnerJSON(rn *runner) map[string]any {
	labels := make([]map[string]any, len(rn.labels))
	for i, l := range rn.labels {
		labels[i] = map[string]any{"id": i + 1, "name": l, "type": "custom"}
	}
	status := "offline"
	if rn.online {
		status = "online"
	}
	return map[string]any{
		"id": rn.id, "name": rn.name, "status": status, "busy": rn.busy,
		"disabled": false, "ephemeral": rn.ephemeral, "labels": labels,
	}
}

func (s *Sim) giteaListRunners(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return giteaError(http.StatusNotFound, "Not Found")
	}
	var all []map[string]any
	for _, id := range sortedIDs(s.st.runners) {
		if rn := s.st.runners[id]; rn.forge == garrison.Gitea && rn.scope.key() == sc.key() {
			all = append(all, giteaRunnerJSON(rn))
		}
	}
	pg, link := page(r, all, "limit", 30, 50)
	return withLink(ok(http.StatusOK, map[string]any{"runners": nonNil(pg), "total_count": len(all)}), link)
}

func (s *Sim) giteaGetRunner(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn := s.st.runnerInLocked(scopeOf(r), pathID(r, "id"), garrison.Gitea)
	if rn == nil {
		return giteaError(http.StatusNotFound, "runner not found")
	}
	return ok(http.StatusOK, giteaRunnerJSON(rn))
}

func (s *Sim) giteaDeleteRunner(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn := s.st.runnerInLocked(scopeOf(r), pathID(r, "id"), garrison.Gitea)
	if rn == nil {
		return giteaError(http.StatusNotFound, "runner not found")
	}
	delete(s.st.runners, rn.id)
	return noContent()
}

// giteaListJobs lists the jobs visible at a scope, oldest first, filtered by status.
func (s *Sim) giteaListJobs(r *http.Request, _ principal) reply {
	sc, want := scopeOf(r), r.URL.Query().Get("status")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return giteaError(http.StatusNotFound, "Not Found")
	}
	var all []map[string]any
	for _, id := range sortedIDs(s.st.jobs) {
		j := s.st.jobs[id]
		if s.st.coversLocked(sc, j.repo) && (want == "" || want == j.status || want == j.conclusion) {
			all = append(all, s.giteaJobObjectLocked(j))
		}
	}
	pg, link := page(r, all, "limit", 30, 50)
	return withLink(ok(http.StatusOK, map[string]any{"jobs": nonNil(pg), "total_count": len(all)}), link)
}

func giteaHookJSON(h *hook) map[string]any {
	ts := h.createdAt.UTC().Format(time.RFC3339)
	return map[string]any{
		"id": h.id, "type": "gitea", "branch_filter": h.branchFilter, "active": h.active, "events": h.events,
		"config":     map[string]string{"url": h.url, "content_type": "json"},
		"created_at": ts, "updated_at": ts, "authorization_header": "",
	}
}

func (s *Sim) giteaListHooks(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return giteaError(http.StatusNotFound, "Not Found")
	}
	var all []map[string]any
	for _, h := range s.st.hooksOfLocked(sc, garrison.Gitea) {
		all = append(all, giteaHookJSON(h))
	}
	pg, link := page(r, all, "limit", 30, 50)
	return withLink(ok(http.StatusOK, nonNil(pg)), link)
}

func (s *Sim) giteaCreateHook(r *http.Request, _ principal) reply {
	var req hookRequest
	if err := decodeJSON(r, &req); err != nil || req.url() == "" {
		return giteaError(http.StatusUnprocessableEntity, "Missing config option: url")
	}
	sc := scopeOf(r)
	events, active := req.defaults()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return giteaError(http.StatusNotFound, "Not Found")
	}
	h := s.st.addHookLocked(sc, garrison.Gitea, req.url(), req.secret(), events, active, s.now())
	h.config, h.branchFilter = req.settings(), req.BranchFilter
	return ok(http.StatusCreated, giteaHookJSON(h))
}

func (s *Sim) giteaGetHook(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.Gitea)
	if h == nil {
		return giteaError(http.StatusNotFound, "hook not found")
	}
	return ok(http.StatusOK, giteaHookJSON(h))
}

// giteaTestHook serves a repository hook's test: 204, and a synthetic push delivery.
func (s *Sim) giteaTestHook(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.Gitea)
	if h == nil {
		return giteaError(http.StatusNotFound, "hook not found")
	}
	if h.active {
		s.out.enqueue(s.outgoingLocked(h, "push", testPushPayload(h)), 0)
	}
	return noContent()
}

func (s *Sim) giteaDeleteHook(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.Gitea)
	if h == nil {
		return giteaError(http.StatusNotFound, "hook not found")
	}
	delete(s.st.hooks, h.id)
	return noContent()
}

// giteaRegisterRPC serves the runner Register RPC (JSON connect protocol).
func (s *Sim) giteaRegisterRPC(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name      string   `json:"name"`
		Token     string   `json:"token"`
		Labels    []string `json:"labels"`
		Ephemeral bool     `json:"ephemeral"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.write(w, reply{status: http.StatusBadRequest, body: map[string]string{"code": "invalid_argument", "message": err.Error()}})
		return
	}
	labels := make([]string, len(req.Labels))
	for i, l := range req.Labels {
		labels[i], _, _ = strings.Cut(l, ":") // "self-hosted:host" → "self-hosted"
	}
	rn, err := s.RegisterRunner(req.Token, req.Name, labels, req.Ephemeral)
	if err != nil {
		code := map[garrison.ErrorCode]string{garrison.EUnauthorized: "unauthenticated", garrison.EConflict: "already_exists"}[garrison.CodeOf(err)]
		s.write(w, reply{status: http.StatusBadRequest, body: map[string]string{"code": cmpOrS(code, "invalid_argument"), "message": err.Error()}})
		return
	}
	s.write(w, ok(http.StatusOK, map[string]any{"runner": map[string]any{
		"id": fmt.Sprint(rn.ID), "uuid": newGUID(), "token": rn.Secret, "name": rn.Name,
		"labels": rn.Labels, "ephemeral": rn.Ephemeral,
	}}))
}

func cmpOrS(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

package forgesim

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

func (h *hook) wants(event string) bool {
	for _, e := range h.events {
		if e == event || e == "*" {
			return true
		}
	}
	return false
}

// targetType is the X-…-Hook-Installation-Target-Type of a hook's deliveries.
func targetType(h *hook) string {
	switch h.scope.kind {
	case "orgs":
		return "organization"
	case "enterprises":
		return "business"
	case "admin":
		return "system"
	}
	return "repository"
}

// hookType is the "type" key of a GitHub hook object.
func hookType(h *hook) string {
	if h.scope.kind == "orgs" {
		return "Organization"
	}
	return "Repository"
}

func (st *state) scopeIDLocked(sc scope) int64 {
	switch sc.kind {
	case "repos":
		if r := st.repoLocked(sc.name); r != nil {
			return r.id
		}
	case "orgs":
		if o := st.orgs[strings.ToLower(sc.name)]; o != nil {
			return o.id
		}
	case "enterprises":
		if e := st.enterprises[strings.ToLower(sc.name)]; e != nil {
			return e.id
		}
	}
	return 0
}

// parseScope reads "repos/o/r", "orgs/o", "enterprises/e" or "admin".
func parseScope(path string) (scope, error) {
	kind, name, _ := strings.Cut(strings.Trim(path, "/"), "/")
	switch {
	case kind == "admin" && name == "":
		return scope{kind: "admin"}, nil
	case kind == "repos" && strings.Count(name, "/") == 1:
		return scope{kind, name}, nil
	case (kind == "orgs" || kind == "enterprises") && name != "" && !strings.Contains(name, "/"):
		return scope{kind, name}, nil
	}
	return scope{}, garrison.Errorf(garrison.EInvalid, "forgesim: bad scope %q", path)
}

// AddHook registers a webhook directly (as an administrator would in the UI) at a scope
// "repos/o/r", "orgs/o", "enterprises/e" or "admin" (Gitea system hook), for the
// workflow_job event. forge selects the delivery headers and payload flavour.
func (s *Sim) AddHook(scopePath, url, secret string, forge garrison.ForgeType) (int64, error) {
	sc, err := parseScope(scopePath)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return 0, fmt.Errorf("forgesim: scope %q: %w", scopePath, garrison.ErrNotFound)
	}
	h := s.st.addHookLocked(sc, forge, url, secret, []string{"workflow_job"}, true, s.now())
	return h.id, nil
}

func (st *state) addHookLocked(sc scope, f garrison.ForgeType, url, secret string, events []string, active bool, now time.Time) *hook {
	h := &hook{id: st.id(), scope: sc, forge: f, url: url, secret: secret, events: events, active: active, createdAt: now}
	st.hooks[h.id] = h
	return h
}

func (st *state) hooksOfLocked(sc scope, f garrison.ForgeType) []*hook {
	var out []*hook
	for _, id := range sortedIDs(st.hooks) {
		if h := st.hooks[id]; h.forge == f && h.scope.key() == sc.key() {
			out = append(out, h)
		}
	}
	return out
}

func (st *state) hookInLocked(sc scope, id int64, f garrison.ForgeType) *hook {
	h := st.hooks[id]
	if h == nil || h.forge != f || h.scope.key() != sc.key() {
		return nil
	}
	return h
}

type hookRequest struct {
	Type         string         `json:"type"`
	Name         string         `json:"name"`
	Active       *bool          `json:"active"`
	Events       []string       `json:"events"`
	BranchFilter string         `json:"branch_filter"`
	Config       map[string]any `json:"config"`
}

// url and secret are the config keys every hook has.
func (req *hookRequest) url() string    { return configString(req.Config, "url") }
func (req *hookRequest) secret() string { return configString(req.Config, "secret") }

// settings are the config keys other than the URL and the secret, as strings.
func (req *hookRequest) settings() map[string]string {
	out := map[string]string{}
	for k := range req.Config {
		if k != "url" && k != "secret" {
			out[k] = configString(req.Config, k)
		}
	}
	return out
}

func configString(m map[string]any, k string) string {
	switch v := m[k].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// Hook is a snapshot of a simulated webhook, for tests.
type Hook struct {
	ID           int64
	Scope        string // "repos/o/r", "orgs/o", "enterprises/e" or "admin"
	Forge        garrison.ForgeType
	URL          string
	Events       []string
	Active       bool
	BranchFilter string
	Config       map[string]string // config keys other than url and secret
}

// Hooks returns every hook, oldest first.
func (s *Sim) Hooks() []Hook {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Hook
	for _, id := range sortedIDs(s.st.hooks) {
		h := s.st.hooks[id]
		cfg := map[string]string{}
		for k, v := range h.config {
			cfg[k] = v
		}
		out = append(out, Hook{ID: h.id, Scope: h.scope.path(), Forge: h.forge, URL: h.url,
			Events: append([]string(nil), h.events...), Active: h.active, BranchFilter: h.branchFilter, Config: cfg})
	}
	return out
}

func (req *hookRequest) defaults() (events []string, active bool) {
	events, active = req.Events, true
	if len(events) == 0 {
		events = []string{"push"}
	}
	if req.Active != nil {
		active = *req.Active
	}
	return events, active
}

func (s *Sim) ghHookJSONLocked(base string, h *hook) map[string]any {
	self := fmt.Sprintf("%s/%s/hooks/%d", base, h.scope.path(), h.id)
	m := map[string]any{
		"type": hookType(h), "id": h.id, "name": "web", "active": h.active, "events": h.events,
		"config":     map[string]string{"url": h.url, "content_type": "json", "insecure_ssl": cmpOrS(h.config["insecure_ssl"], "0"), "secret": mask(h.secret)},
		"created_at": h.createdAt.UTC().Format(time.RFC3339), "updated_at": h.createdAt.UTC().Format(time.RFC3339),
		"url": self, "ping_url": self + "/pings", "deliveries_url": self + "/deliveries",
	}
	if h.scope.kind == "repos" {
		m["test_url"] = self + "/test"
		m["last_response"] = map[string]any{"code": nil, "status": "unused", "message": nil}
	}
	return m
}

func mask(secret string) string {
	if secret == "" {
		return ""
	}
	return "********"
}

func (s *Sim) githubHookRoutes() {
	for _, sc := range ghScopes[:2] {
		s.github("GET "+sc+"/hooks", s.ghListHooks)
		s.github("POST "+sc+"/hooks", s.ghCreateHook)
		s.github("GET "+sc+"/hooks/{id}", s.ghGetHook)
		s.github("DELETE "+sc+"/hooks/{id}", s.ghDeleteHook)
		s.github("POST "+sc+"/hooks/{id}/pings", s.ghPingHook)
		s.github("GET "+sc+"/hooks/{id}/deliveries", s.ghListDeliveries)
		s.github("GET "+sc+"/hooks/{id}/deliveries/{delivery}", s.ghGetDelivery)
		s.github("POST "+sc+"/hooks/{id}/deliveries/{delivery}/attempts", s.ghRedeliver)
	}
}

func (s *Sim) ghListHooks(r *http.Request, _ principal) reply {
	sc, base := scopeOf(r), s.baseFor(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	var all []map[string]any
	for _, h := range s.st.hooksOfLocked(sc, garrison.GitHub) {
		all = append(all, s.ghHookJSONLocked(base, h))
	}
	pg, link := page(r, all, "per_page", 30, 100)
	return withLink(ok(http.StatusOK, nonNil(pg)), link)
}

func (s *Sim) ghCreateHook(r *http.Request, _ principal) reply {
	var req hookRequest
	if err := decodeJSON(r, &req); err != nil {
		return ghError(http.StatusBadRequest, "Problems parsing JSON")
	}
	if req.url() == "" {
		return ghValidation("Hook", "Config url cannot be blank")
	}
	sc, base := scopeOf(r), s.baseFor(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	for _, h := range s.st.hooksOfLocked(sc, garrison.GitHub) {
		if h.url == req.url() {
			where := map[string]string{"repos": "repository", "orgs": "organization"}[sc.kind]
			return ghValidation("Hook", "Hook already exists on this "+where)
		}
	}
	events, active := req.defaults()
	h := s.st.addHookLocked(sc, garrison.GitHub, req.url(), req.secret(), events, active, s.now())
	h.config, h.branchFilter = req.settings(), req.BranchFilter
	s.pingLocked(h)
	rp := ok(http.StatusCreated, s.ghHookJSONLocked(base, h))
	rp.header = http.Header{"Location": {fmt.Sprintf("%s/%s/hooks/%d", base, sc.path(), h.id)}}
	return rp
}

func (s *Sim) pingLocked(h *hook) {
	if h.active {
		s.out.enqueue(s.outgoingLocked(h, "ping", pingPayload(h)), 0)
	}
}

func (s *Sim) ghGetHook(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.GitHub)
	if h == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, s.ghHookJSONLocked(s.baseOrPlaceholderLocked(), h))
}

func (s *Sim) ghDeleteHook(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.GitHub)
	if h == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	delete(s.st.hooks, h.id)
	return noContent()
}

func (s *Sim) ghPingHook(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.GitHub)
	if h == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	s.pingLocked(h)
	return noContent()
}

package forgesim

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// ghScopes are the path prefixes of the three GitHub runner scopes.
var ghScopes = []string{"/repos/{owner}/{repo}", "/orgs/{org}", "/enterprises/{enterprise}"}

// scopeOf reads the scope from the path wildcards of a matched route.
func scopeOf(r *http.Request) scope {
	switch {
	case r.PathValue("owner") != "":
		return scope{"repos", r.PathValue("owner") + "/" + r.PathValue("repo")}
	case r.PathValue("org") != "":
		return scope{"orgs", r.PathValue("org")}
	case r.PathValue("enterprise") != "":
		return scope{"enterprises", r.PathValue("enterprise")}
	}
	return scope{kind: "admin"}
}

func (s *Sim) githubRunnerRoutes() {
	for _, sc := range ghScopes {
		s.github("POST "+sc+"/actions/runners/registration-token", s.ghRegistrationToken)
		s.github("POST "+sc+"/actions/runners/remove-token", s.ghRegistrationToken)
		s.github("POST "+sc+"/actions/runners/generate-jitconfig", s.ghJITConfig)
		s.github("GET "+sc+"/actions/runners", s.ghListRunners)
		s.github("GET "+sc+"/actions/runners/{id}", s.ghGetRunner)
		s.github("DELETE "+sc+"/actions/runners/{id}", s.ghDeleteRunner)
		s.github("GET "+sc+"/actions/runners/downloads", s.ghDownloads)
	}
	s.github("GET /orgs/{org}/actions/runner-groups", s.ghRunnerGroups)
	s.github("GET /enterprises/{enterprise}/actions/runner-groups", s.ghRunnerGroups)
}

// baseFor is the URL clients reach the simulator at.
func (s *Sim) baseFor(r *http.Request) string {
	if u := s.URL(); u != "" {
		return u
	}
	return "http://" + r.Host
}

func (s *Sim) ghRegistrationToken(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	tok := strings.ToUpper(randomHex(15))
	s.st.regTokens[tok] = sc
	return ok(http.StatusCreated, map[string]string{
		"token":      tok,
		"expires_at": s.now().Add(time.Hour).Format(time.RFC3339),
	})
}

type jitRequest struct {
	Name          string   `json:"name"`
	RunnerGroupID *int64   `json:"runner_group_id"`
	Labels        []string `json:"labels"`
	WorkFolder    string   `json:"work_folder"`
}

func (s *Sim) ghJITConfig(r *http.Request, _ principal) reply {
	var req jitRequest
	if err := decodeJSON(r, &req); err != nil {
		return ghError(http.StatusBadRequest, "Problems parsing JSON")
	}
	switch {
	case req.Name == "":
		return ghValidation("Runner", "name is missing")
	case len(req.Labels) == 0 || len(req.Labels) > 100:
		return ghValidation("Runner", "labels must have 1 to 100 items")
	case req.RunnerGroupID == nil || *req.RunnerGroupID <= 0:
		return ghValidation("Runner", "runner_group_id is missing")
	}
	if req.WorkFolder == "" {
		req.WorkFolder = "_work"
	}
	sc := scopeOf(r)
	base := s.baseFor(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	g, found := findGroup(s.st.groupsLocked(sc), *req.RunnerGroupID)
	if !s.st.scopeExistsLocked(sc) || !found {
		return ghError(http.StatusNotFound, "Not Found")
	}
	if s.st.runnerByNameLocked(sc, req.Name) != nil {
		return ghError(http.StatusConflict, fmt.Sprintf("Already exists - A runner with the name %s already exists.", req.Name))
	}
	rn := s.st.addRunnerLocked(sc, garrison.GitHub, req.Name, req.Labels, true)
	rn.groupID, rn.groupName = g.ID, g.Name
	return ok(http.StatusCreated, map[string]any{
		"runner":             ghRunnerJSON(rn),
		"encoded_jit_config": encodeJIT(base, rn, req.WorkFolder),
	})
}

func findGroup(gs []group, id int64) (group, bool) {
	for _, g := range gs {
		if g.ID == id {
			return g, true
		}
	}
	return group{}, false
}

// encodeJIT builds encoded_jit_config: base64 of a JSON map of base64 JSON files. The
// runner's simulator credential is .credentials → Data.ClientId.
func encodeJIT(base string, rn *runner, workFolder string) string {
	b64 := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.StdEncoding.EncodeToString(b)
	}
	files := map[string]string{
		".runner": b64(map[string]string{
			"AgentId": fmt.Sprint(rn.id), "AgentName": rn.name, "DisableUpdate": "true",
			"Ephemeral": "true", "PoolId": fmt.Sprint(rn.groupID), "PoolName": rn.groupName,
			"ServerUrl": base + "/_sim/", "WorkFolder": workFolder,
			"GitHubUrl": base + "/" + strings.TrimPrefix(rn.scope.name, "/"),
		}),
		".credentials": b64(map[string]any{
			"Scheme": "OAuth",
			"Data":   map[string]string{"ClientId": rn.secret, "AuthorizationUrl": base + "/_sim/oauth"},
		}),
		".credentials_rsaparams": b64(map[string]string{
			"d": "ZA==", "dp": "ZA==", "dq": "ZA==", "exponent": "AQAB",
			"inverseQ": "ZA==", "modulus": "ZA==", "p": "ZA==", "q": "ZA==",
		}),
	}
	b, _ := json.Marshal(files)
	return base64.StdEncoding.EncodeToString(b)
}

// RunnerSecret extracts the simulator credential from a decoded .credentials file of a
// JIT configuration: the stand-in runner presents it as "Authorization: Bearer <secret>".
func RunnerSecret(credentialsFile []byte) (string, error) {
	var c struct {
		Data struct{ ClientId string }
	}
	if err := json.Unmarshal(credentialsFile, &c); err != nil {
		return "", fmt.Errorf("forgesim: .credentials: %w", err)
	}
	if c.Data.ClientId == "" {
		return "", fmt.Errorf("forgesim: .credentials without ClientId: %w", garrison.ErrInvalid)
	}
	return c.Data.ClientId, nil
}

func (s *Sim) ghListRunners(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	name := r.URL.Query().Get("name")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	var all []map[string]any
	for _, id := range sortedIDs(s.st.runners) {
		rn := s.st.runners[id]
		if rn.forge == garrison.GitHub && rn.scope.key() == sc.key() && (name == "" || name == rn.name) {
			all = append(all, ghRunnerJSON(rn))
		}
	}
	pg, link := page(r, all, "per_page", 30, 100)
	rp := ok(http.StatusOK, map[string]any{"total_count": len(all), "runners": nonNil(pg)})
	return withLink(rp, link)
}

func withLink(rp reply, link string) reply {
	if link != "" {
		rp.header = http.Header{"Link": {link}}
	}
	return rp
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (s *Sim) ghGetRunner(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn := s.st.runnerInLocked(scopeOf(r), pathID(r, "id"), garrison.GitHub)
	if rn == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, ghRunnerJSON(rn))
}

func (s *Sim) ghDeleteRunner(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	rn := s.st.runnerInLocked(scopeOf(r), pathID(r, "id"), garrison.GitHub)
	switch {
	case rn == nil:
		return ghError(http.StatusNotFound, "Not Found")
	case rn.busy:
		return ghError(http.StatusUnprocessableEntity, fmt.Sprintf("Bad request - Runner %q is still running a job", rn.name))
	}
	delete(s.st.runners, rn.id)
	return noContent()
}

func (s *Sim) ghDownloads(r *http.Request, _ principal) reply {
	base := s.baseFor(r)
	s.mu.Lock()
	sum := sha256.Sum256(s.tarball)
	exists := s.st.scopeExistsLocked(scopeOf(r))
	s.mu.Unlock()
	if !exists {
		return ghError(http.StatusNotFound, "Not Found")
	}
	var out []map[string]string
	for _, osName := range []string{"linux", "osx", "win"} {
		for _, arch := range []string{"x64", "arm64"} {
			ext := ".tar.gz"
			if osName == "win" {
				ext = ".zip"
			}
			file := fmt.Sprintf("actions-runner-%s-%s-%s%s", osName, arch, s.opts.RunnerVersion, ext)
			out = append(out, map[string]string{
				"os": osName, "architecture": arch, "filename": file,
				"download_url":    base + "/_sim/downloads/" + file,
				"sha256_checksum": hex.EncodeToString(sum[:]),
			})
		}
	}
	return ok(http.StatusOK, out)
}

func (s *Sim) ghRunnerGroups(r *http.Request, _ principal) reply {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.scopeExistsLocked(sc) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	var all []map[string]any
	for _, g := range s.st.groupsLocked(sc) {
		all = append(all, map[string]any{
			"id": g.ID, "name": g.Name, "visibility": "all", "default": g.ID == 1,
			"inherited": false, "allows_public_repositories": true, "restricted_to_workflows": false,
			"selected_workflows": []string{}, "runners_url": fmt.Sprintf("/%s/actions/runner-groups/%d/runners", sc.path(), g.ID),
		})
	}
	pg, link := page(r, all, "per_page", 30, 100)
	return withLink(ok(http.StatusOK, map[string]any{"total_count": len(all), "runner_groups": nonNil(pg)}), link)
}

var readOnlyLabels = map[string]bool{"self-hosted": true, "linux": true, "windows": true, "macos": true, "x64": true, "arm64": true, "arm": true}

func ghRunnerJSON(rn *runner) map[string]any {
	labels := make([]map[string]any, len(rn.labels))
	for i, l := range rn.labels {
		typ := "custom"
		if readOnlyLabels[strings.ToLower(l)] {
			typ = "read-only"
		}
		labels[i] = map[string]any{"id": i + 1, "name": l, "type": typ}
	}
	status := "offline"
	if rn.online {
		status = "online"
	}
	var version any
	if rn.version != "" {
		version = rn.version
	}
	return map[string]any{
		"id": rn.id, "runner_group_id": rn.groupID, "name": rn.name, "os": "unknown",
		"status": status, "busy": rn.busy, "ephemeral": rn.ephemeral, "version": version, "labels": labels,
	}
}

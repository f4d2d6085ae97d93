package forgesim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// mintJWT returns a token in JWT form whose payload carries exp, as the service's tokens
// do: clients read exp unverified. The simulator checks its tokens by lookup, so the
// signature is random.
func mintJWT(exp time.Time, subject string) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := enc(map[string]string{"alg": "RS256", "typ": "JWT"})
	body := enc(map[string]any{"exp": exp.Unix(), "nbf": exp.Add(-time.Hour).Unix(), "sub": subject, "jti": randomHex(8)})
	return head + "." + body + "." + base64.RawURLEncoding.EncodeToString([]byte(randomHex(16)))
}

// serviceBase is the Actions service URL of a tenant; the tenant is the scope's id.
func (s *Sim) serviceBaseLocked(base string, sc scope) string {
	return base + "/_actions/" + strconv.FormatInt(s.st.scopeIDLocked(sc), 10) + "/"
}

// runnerRegistration serves POST [/api/v3]/actions/runner-registration: a registration
// token ("RemoteAuth") and the entity's web URL buy the service URL and an admin token.
func (s *Sim) runnerRegistration(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "RemoteAuth ")
	var req struct {
		URL         string `json:"url"`
		RunnerEvent string `json:"runner_event"`
	}
	if err := decodeJSON(r, &req); err != nil || req.URL == "" {
		s.count("POST /actions/runner-registration", anonymous, r.URL.RawQuery)
		s.write(w, ghError(http.StatusBadRequest, "Problems parsing JSON"))
		return
	}
	s.write(w, s.register(s.baseFor(r), tok, req.URL))
}

func (s *Sim) register(base, tok, configURL string) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.calls[CallKey{"POST /actions/runner-registration", "registration-token"}]++
	if f := &s.st.actions.faults; f.regFailN > 0 {
		f.regFailN--
		return ghError(f.regStatus, "forgesim: injected failure")
	}
	sc, known := s.st.regTokens[tok]
	if !known {
		return ghError(http.StatusUnauthorized, "Bad credentials")
	}
	target, valid := scopeOfConfigURL(configURL)
	if !valid || target.key() != sc.key() || !s.st.scopeExistsLocked(sc) {
		return ghError(http.StatusNotFound, "Not Found")
	}
	exp := s.now().Add(s.st.actions.opts.AdminTokenTTL)
	admin := mintJWT(exp, sc.path())
	s.st.actions.adminTokens[admin] = &adminToken{scope: sc, expires: exp}
	return ok(http.StatusOK, map[string]string{
		"url": s.serviceBaseLocked(base, sc), "token": admin, "token_schema": "OAuthAccessToken",
	})
}

// scopeOfConfigURL reads the scope from an entity's web URL: /OWNER/REPO, /ORG or
// /enterprises/SLUG.
func scopeOfConfigURL(raw string) (scope, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return scope{}, false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch {
	case len(parts) == 2 && strings.EqualFold(parts[0], "enterprises") && parts[1] != "":
		return scope{"enterprises", parts[1]}, true
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return scope{"repos", parts[0] + "/" + parts[1]}, true
	case len(parts) == 1 && parts[0] != "":
		return scope{"orgs", parts[0]}, true
	}
	return scope{}, false
}

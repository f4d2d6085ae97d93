package forgesim

import (
	"crypto/rsa"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
)

// AddToken accepts token as a personal access token on every GitHub and Gitea route. Its
// calls are counted and rate limited under the credential name token itself.
func (s *Sim) AddToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.pats[token] = true
}

// AddApp registers a GitHub App by id, with the public half of its signing key, and its
// installations. App JWTs signed with the key get installation tokens at
// POST /app/installations/{id}/access_tokens.
func (s *Sim) AddApp(appID int64, key *rsa.PublicKey, installationIDs ...int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &app{id: appID, key: key, installations: map[int64]bool{}}
	for _, id := range installationIDs {
		a.installations[id] = true
	}
	s.st.apps[appID] = a
}

// AddEnterprise creates an enterprise with the default runner group (id 1).
func (s *Sim) AddEnterprise(slug string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := strings.ToLower(slug)
	if s.st.enterprises[k] == nil {
		s.st.enterprises[k] = &enterprise{id: s.st.id(), slug: slug, groups: []group{defaultGroup}}
	}
}

// AddOrg creates an organization with the default runner group (id 1), optionally inside
// an enterprise (created when missing). Adding an existing organization is a no-op.
func (s *Sim) AddOrg(name string, enterpriseSlug ...string) {
	if len(enterpriseSlug) > 0 {
		s.AddEnterprise(enterpriseSlug[0])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := strings.ToLower(name)
	if s.st.orgs[k] != nil {
		return
	}
	o := &org{id: s.st.id(), name: name, groups: []group{defaultGroup}}
	if len(enterpriseSlug) > 0 {
		o.enterprise = strings.ToLower(enterpriseSlug[0])
	}
	s.st.orgs[k] = o
}

// AddRepo creates the repository "owner/name". The owner is a user unless an organization
// of that name exists (org hooks and org runners see only organization repositories).
func (s *Sim) AddRepo(fullName string) error {
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return garrison.Errorf(garrison.EInvalid, "forgesim: repository %q is not owner/name", fullName)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := strings.ToLower(fullName)
	if s.st.repos[k] == nil {
		s.st.repos[k] = &repo{id: s.st.id(), owner: owner, name: name}
	}
	return nil
}

// AddRunnerGroup adds a runner group to an organization or, with enterprise true, to an
// enterprise, and returns its id.
func (s *Sim) AddRunnerGroup(owner, name string, enterprise bool) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := group{ID: s.st.id(), Name: name}
	k := strings.ToLower(owner)
	switch {
	case enterprise && s.st.enterprises[k] != nil:
		e := s.st.enterprises[k]
		e.groups = append(e.groups, g)
	case !enterprise && s.st.orgs[k] != nil:
		o := s.st.orgs[k]
		o.groups = append(o.groups, g)
	default:
		return 0, fmt.Errorf("forgesim: owner %q: %w", owner, garrison.ErrNotFound)
	}
	return g.ID, nil
}

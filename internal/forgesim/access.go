package forgesim

import "strings"

// RevokeToken stops accepting a personal access token added with AddToken: its calls
// are answered 401 Bad credentials (GitHub) or 401 (Gitea) until AddToken adds it again.
func (s *Sim) RevokeToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.st.pats, token)
}

// SetUnreachable makes every GitHub and Gitea route of a repository ("repos/o/r"), an
// organization ("orgs/o") or an enterprise ("enterprises/e") answer 404 Not Found, as
// the forge does when the entity was deleted or renamed or the credentials lost access
// to it; false undoes it. The entity's runners, hooks and jobs are kept.
func (s *Sim) SetUnreachable(scopePath string, unreachable bool) {
	kind, name, _ := strings.Cut(scopePath, "/")
	k := scope{kind: kind, name: name}.key()
	s.mu.Lock()
	defer s.mu.Unlock()
	if unreachable {
		s.st.unreachable[k] = true
	} else {
		delete(s.st.unreachable, k)
	}
}

// unreachableLocked reports whether sc was made unreachable with SetUnreachable.
func (st *state) unreachableLocked(sc scope) bool {
	return st.unreachable[sc.key()]
}

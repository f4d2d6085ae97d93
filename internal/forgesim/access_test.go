package forgesim

import (
	"net/http"
	"testing"
)

// TestAccessFaults checks RevokeToken (401 until the token is added again) and
// SetUnreachable (404 on every route of the entity, on GitHub and Gitea, until undone).
func TestAccessFaults(t *testing.T) {
	tests := []struct {
		name         string
		path         string
		breakIt, fix func(s *Sim)
		want         int
	}{
		{"revoked token", "/repos/acme/app/actions/runners",
			func(s *Sim) { s.RevokeToken(pat) }, func(s *Sim) { s.AddToken(pat) }, http.StatusUnauthorized},
		{"unreachable repository", "/repos/acme/app/hooks",
			func(s *Sim) { s.SetUnreachable("repos/acme/app", true) }, func(s *Sim) { s.SetUnreachable("repos/acme/app", false) }, http.StatusNotFound},
		{"unreachable organization on GHES", "/api/v3/orgs/acme/actions/runners",
			func(s *Sim) { s.SetUnreachable("orgs/acme", true) }, func(s *Sim) { s.SetUnreachable("orgs/acme", false) }, http.StatusNotFound},
		{"unreachable organization on Gitea", "/api/v1/orgs/acme/actions/runners",
			func(s *Sim) { s.SetUnreachable("orgs/acme", true) }, func(s *Sim) { s.SetUnreachable("orgs/acme", false) }, http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, url := newSim(t, Options{})
			if err := s.AddRepo("acme/other"); err != nil {
				t.Fatal(err)
			}
			if resp, body := call(t, "GET", url+tt.path, pat, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("before: %d %s", resp.StatusCode, body)
			}
			tt.breakIt(s)
			if resp, body := call(t, "GET", url+tt.path, pat, nil); resp.StatusCode != tt.want {
				t.Fatalf("broken: %d %s, want %d", resp.StatusCode, body, tt.want)
			}
			if resp, _ := call(t, "GET", url+"/repos/acme/other/actions/runners", pat, nil); tt.want == http.StatusNotFound && resp.StatusCode != http.StatusOK {
				t.Fatalf("another repository: %d, want 200", resp.StatusCode)
			}
			tt.fix(s)
			if resp, body := call(t, "GET", url+tt.path, pat, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("fixed: %d %s", resp.StatusCode, body)
			}
		})
	}
}

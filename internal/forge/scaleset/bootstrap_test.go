package scaleset

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/garrison-ci/garrison"
)

// A service that answers the bootstrap with something unusable is an EUnprocessable
// error, not a crash or a stored bad token. (The simulator always answers well, so a
// small server plays the broken service here.)
func TestBrokenBootstrapAnswers(t *testing.T) {
	tests := []struct{ name, answer string }{
		{"no token", `{"url": "http://svc/"}`},
		{"no url", `{"token": "a.b.c"}`},
		{"bad url", `{"url": "svc", "token": "a.b.c"}`},
		{"token not a JWT", `{"url": "http://svc/", "token": "opaque"}`},
		{"JWT without exp", `{"url": "http://svc/", "token": "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln"}`},
		{"not JSON", `<html>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/api/v3/orgs/o/actions/runners/registration-token":
					w.WriteHeader(http.StatusCreated)
					_, _ = w.Write([]byte(`{"token": "REG"}`))
				case "/api/v3/actions/runner-registration":
					_, _ = w.Write([]byte(tt.answer))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			ep := garrison.Endpoint{BaseURL: srv.URL, APIBaseURL: srv.URL + "/api/v3/"}
			c, err := New(ep, garrison.Credentials{PAT: "x"}, garrison.Entity{Type: garrison.Organization, Name: "o"}, Options{RetryMax: -1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.ScaleSets(t.Context()); !errors.Is(err, garrison.ErrUnprocessable) {
				t.Fatalf("err = %v, want ErrUnprocessable", err)
			}
			if c.adminToken != "" {
				t.Fatalf("kept admin token %q", c.adminToken)
			}
		})
	}
}

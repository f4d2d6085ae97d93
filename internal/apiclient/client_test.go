package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

type seen struct {
	method, uri, auth, accept, ctype, body string
}

// recorder answers every request with status and body and records it.
type recorder struct {
	mu     sync.Mutex // guards reqs
	reqs   []seen
	status int
	ctype  string
	body   string
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, seen{r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(b)})
	rec.mu.Unlock()
	ct := rec.ctype
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	if rec.status != 0 {
		w.WriteHeader(rec.status)
	}
	io.WriteString(w, rec.body)
}

func newTestClient(t *testing.T, rec *recorder, suffix string) *Client {
	t.Helper()
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+suffix, "secret-token", WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRequests(t *testing.T) {
	tests := []struct {
		name string
		body string
		call func(context.Context, *Client) error
		want seen
	}{
		{"list repos drops empty query", "[]", func(ctx context.Context, c *Client) error {
			_, err := c.ListRepositories(ctx, RepoFilter{Owner: "o", Endpoint: ""})
			return err
		}, seen{method: "GET", uri: "/api/v1/repositories?owner=o"}},
		{"list orgs no query", "[]", func(ctx context.Context, c *Client) error {
			_, err := c.ListOrganizations(ctx, EntityFilter{})
			return err
		}, seen{method: "GET", uri: "/api/v1/organizations"}},
		{"create repo", `{"id":"x"}`, func(ctx context.Context, c *Client) error {
			r, err := c.CreateRepository(ctx, apiv1.CreateRepoParams{Owner: "o", Name: "n", CredentialsName: "c", WebhookSecret: "s"})
			if err == nil && r.ID != "x" {
				err = errors.New("response not decoded")
			}
			return err
		}, seen{method: "POST", uri: "/api/v1/repositories", ctype: "application/json", body: `{"owner":"o","name":"n","credentials_name":"c","webhook_secret":"s"}`}},
		{"escape endpoint name", "{}", func(ctx context.Context, c *Client) error {
			_, err := c.GetEndpoint(ctx, GitHub, "my ghes/1")
			return err
		}, seen{method: "GET", uri: "/api/v1/github/endpoints/my%20ghes%2F1"}},
		{"delete instance sends both params", "", func(ctx context.Context, c *Client) error {
			return c.DeleteInstance(ctx, "r1", true, false)
		}, seen{method: "DELETE", uri: "/api/v1/instances/r1?bypassGHUnauthorized=false&forceRemove=true"}},
		{"delete repo keepWebhook", "", func(ctx context.Context, c *Client) error {
			return c.DeleteEntity(ctx, Repositories, "id", false)
		}, seen{method: "DELETE", uri: "/api/v1/repositories/id?keepWebhook=false"}},
		{"delete enterprise has no keepWebhook", "", func(ctx context.Context, c *Client) error {
			return c.DeleteEntity(ctx, Enterprises, "id", true)
		}, seen{method: "DELETE", uri: "/api/v1/enterprises/id"}},
		{"credentials by id", "{}", func(ctx context.Context, c *Client) error {
			_, err := c.GetCredentials(ctx, Gitea, 12)
			return err
		}, seen{method: "GET", uri: "/api/v1/gitea/credentials/12"}},
		{"scale set instances", "[]", func(ctx context.Context, c *Client) error {
			_, err := c.ListScaleSetInstances(ctx, 7)
			return err
		}, seen{method: "GET", uri: "/api/v1/scalesets/7/instances"}},
		{"pool instances outdated", "[]", func(ctx context.Context, c *Client) error {
			_, err := c.ListPoolInstances(ctx, "p", true)
			return err
		}, seen{method: "GET", uri: "/api/v1/pools/p/instances?outdatedOnly=true"}},
		{"templates", "[]", func(ctx context.Context, c *Client) error {
			_, err := c.ListTemplates(ctx, "t x")
			return err
		}, seen{method: "GET", uri: "/api/v1/templates?partialName=t+x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{body: tt.body}
			c := newTestClient(t, rec, "/")
			if err := tt.call(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			if len(rec.reqs) != 1 {
				t.Fatalf("%d requests", len(rec.reqs))
			}
			got := rec.reqs[0]
			tt.want.auth, tt.want.accept = "Bearer secret-token", "application/json"
			if got != tt.want {
				t.Errorf("request =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name          string
		status        int
		ctype, body   string
		code, details string
		text          string
	}{
		{"conflict", 409, "", `{"error":"Conflict","details":"already initialized"}`, "Conflict", "already initialized", "already initialized"},
		{"not found", 404, "", `{"error":"Not Found","details":"pool not found"}`, "Not Found", "pool not found", "pool not found"},
		{"empty details", 401, "", `{"error":"Not Authorized","details":""}`, "Not Authorized", "", "Not Authorized"},
		{"no body", 500, "", ``, "", "", "Internal Server Error"},
		{"text/plain", 401, "text/plain", "Unauthorized\n", "", "Unauthorized", "Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{status: tt.status, ctype: tt.ctype, body: tt.body}
			c := newTestClient(t, rec, "")
			_, err := c.GetPool(t.Context(), "p")
			var apiErr *Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, not an *Error", err)
			}
			if apiErr.StatusCode != tt.status || apiErr.Code != tt.code || apiErr.Details != tt.details || err.Error() != tt.text {
				t.Errorf("err = %+v (%q)", apiErr, err.Error())
			}
			if apiErr.Method != "GET" || apiErr.Path != "/pools/p" {
				t.Errorf("request not recorded in the error: %+v", apiErr)
			}
			if StatusCode(err) != tt.status || IsNotFound(err) != (tt.status == 404) || IsConflict(err) != (tt.status == 409) || IsUnauthorized(err) != (tt.status == 401) {
				t.Error("helpers disagree with the status")
			}
		})
	}
}

func TestNoContentAndEmptyBodies(t *testing.T) {
	rec := &recorder{status: http.StatusNoContent}
	c := newTestClient(t, rec, "")
	if err := c.DeleteEndpoint(t.Context(), GitHub, "e"); err != nil {
		t.Errorf("204: %v", err)
	}
	rec.status = 200
	rec.body = "null"
	if list, err := c.ListPools(t.Context()); err != nil || list != nil {
		t.Errorf("null list: %v %v", list, err)
	}
}

func TestNew(t *testing.T) {
	for _, bad := range []string{"", "localhost:9997", "ftp://x", "http://"} {
		if _, err := New(bad, ""); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	c, err := New("https://h:9997/garrison/", "t")
	if err != nil || c.BaseURL() != "https://h:9997/garrison/api/v1" {
		t.Errorf("BaseURL = %q, %v", c.BaseURL(), err)
	}
	c.SetToken("u")
	if c.Token() != "u" {
		t.Error("SetToken")
	}
}

func TestDebugLog(t *testing.T) {
	rec := &recorder{body: `{"token":"jwt"}`}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	var log strings.Builder
	c, _ := New(srv.URL, "very-secret", WithDebug(&log))
	tok, err := c.Login(t.Context(), apiv1.PasswordLoginParams{Username: "u", Password: "hunter2"})
	if err != nil || tok != "jwt" {
		t.Fatalf("login: %q %v", tok, err)
	}
	if !strings.Contains(log.String(), "POST "+srv.URL+"/api/v1/auth/login -> 200") {
		t.Errorf("log = %q", log.String())
	}
	if strings.Contains(log.String(), "very-secret") || strings.Contains(log.String(), "hunter2") {
		t.Errorf("log leaks secrets: %q", log.String())
	}
}

func TestContextCancel(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	c, _ := New(srv.URL, "")
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.ListJobs(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a deadline error", err)
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		t.Error("transport error reported as an API error")
	}
}

// TestSharedShapes checks the request shapes the CLI depends on encode the
// way §5 says.
func TestSharedShapes(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{apiv1.CreateCredentialsParams{Name: "n", AuthType: "pat", PAT: apiv1.GithubPAT{OAuth2Token: "t"}},
			`{"name":"n","description":"","endpoint":"","auth_type":"pat","pat":{"oauth2_token":"t"},"app":{}}`},
		{apiv1.UpdatePoolParams{}, `{"enable_shell":null}`},
		{apiv1.InstallWebhookParams{WebhookEndpointType: "direct"}, `{"webhook_endpoint_type":"direct","insecure_ssl":false}`},
		{apiv1.CreatePoolParams{}, `{"enable_shell":false}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.v)
		if err != nil || string(b) != tt.want {
			t.Errorf("%T = %s (%v), want %s", tt.v, b, err, tt.want)
		}
	}
}

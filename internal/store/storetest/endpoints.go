package storetest

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var endpointCases = []testCase{
	{"Endpoints/GitHubComBuiltIn", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		e := ok(s.Endpoint(ctx, "GitHub.com")).get(t)
		wantEqual(t, "name", e.Name, garrison.GitHubComEndpoint)
		wantEqual(t, "type", e.Type, garrison.GitHub)
		wantEqual(t, "base url", e.BaseURL, garrison.GitHubComBaseURL)
		wantEqual(t, "api url", e.APIBaseURL, garrison.GitHubComAPIBaseURL)
		wantEqual(t, "upload url", e.UploadBaseURL, garrison.GitHubComUploadBaseURL)
		if e.CreatedAt.IsZero() {
			t.Fatal("built-in endpoint has no created_at")
		}
		wantErr(t, s.DeleteEndpoint(ctx, "github.com"), garrison.ErrInvalid)
	}},
	{"Endpoints/CreateGetList", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		in := newEndpoint("GHES.example.com", garrison.GitHub)
		e := ok(s.CreateEndpoint(ctx, in)).get(t)
		checkStamps(t, e.CreatedAt, e.UpdatedAt)
		gitea := newEndpoint("gitea.example.com", garrison.Gitea)
		gitea.UploadBaseURL, gitea.ToolsMetadataURL, gitea.UseInternalToolsMetadata = "", garrison.DefaultGiteaToolsURL, true
		ok(s.CreateEndpoint(ctx, gitea)).get(t)
		got := ok(s.Endpoint(ctx, "ghes.EXAMPLE.com")).get(t)
		wantEqual(t, "name", got.Name, in.Name)
		wantEqual(t, "api url", got.APIBaseURL, in.APIBaseURL)
		wantEqual(t, "ca bundle", string(got.CACertBundle), string(in.CACertBundle))
		wantEqual(t, "created at", got.CreatedAt, e.CreatedAt)
		g := ok(s.Endpoint(ctx, "gitea.example.com")).get(t)
		wantEqual(t, "tools url", g.ToolsMetadataURL, garrison.DefaultGiteaToolsURL)
		wantEqual(t, "internal tools", g.UseInternalToolsMetadata, true)
		for _, tc := range []struct {
			typ  garrison.ForgeType
			want int
		}{{"", 3}, {garrison.GitHub, 2}, {garrison.Gitea, 1}} {
			list := ok(s.ListEndpoints(ctx, tc.typ)).get(t)
			wantEqual(t, "endpoints of "+string(tc.typ), len(list), tc.want)
		}
	}},
	{"Endpoints/Errors", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		ok(s.CreateEndpoint(ctx, newEndpoint("ghes.example.com", garrison.GitHub))).get(t)
		for _, tc := range []struct {
			name string
			err  error
			want error
		}{
			{"duplicate other case", second(s.CreateEndpoint(ctx, newEndpoint("GHES.example.com", garrison.GitHub))), garrison.ErrConflict},
			{"duplicate other forge", second(s.CreateEndpoint(ctx, newEndpoint("ghes.example.com", garrison.Gitea))), garrison.ErrConflict},
			{"duplicate github.com", second(s.CreateEndpoint(ctx, newEndpoint("GITHUB.COM", garrison.Gitea))), garrison.ErrConflict},
			{"get missing", second(s.Endpoint(ctx, "missing")), garrison.ErrNotFound},
			{"update missing", second(s.UpdateEndpoint(ctx, "missing", func(*garrison.Endpoint) error { return nil })), garrison.ErrNotFound},
			{"delete missing", s.DeleteEndpoint(ctx, "missing"), nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.want == nil {
					must(t, tc.err)
					return
				}
				wantErr(t, tc.err, tc.want)
			})
		}
	}},
	{"Endpoints/Update", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		e := ok(s.CreateEndpoint(ctx, newEndpoint("ghes.example.com", garrison.GitHub))).get(t)
		_, err := s.UpdateEndpoint(ctx, e.Name, func(e *garrison.Endpoint) error {
			e.Description = "discarded"
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		got := ok(s.UpdateEndpoint(ctx, "GHES.example.com", func(e *garrison.Endpoint) error {
			e.Description = "new"
			e.BaseURL = "https://ghes2.example.com"
			e.Name = "renamed"
			return nil
		})).get(t)
		wantEqual(t, "name", got.Name, e.Name)
		again := ok(s.Endpoint(ctx, e.Name)).get(t)
		wantEqual(t, "description", again.Description, "new")
		wantEqual(t, "base url", again.BaseURL, "https://ghes2.example.com")
		ok(s.CreateCredentials(ctx, newCreds("c", e.Name))).get(t)
		ok(s.UpdateEndpoint(ctx, e.Name, func(e *garrison.Endpoint) error {
			e.Description = "still allowed"
			return nil
		})).get(t)
		_, err = s.UpdateEndpoint(ctx, e.Name, func(e *garrison.Endpoint) error {
			e.APIBaseURL = "https://elsewhere.example.com/api/v3/"
			return nil
		})
		wantErr(t, err, garrison.ErrInvalid)
		wantEqual(t, "api url", ok(s.Endpoint(ctx, e.Name)).get(t).APIBaseURL, e.APIBaseURL)
	}},
	{"Endpoints/DeleteInUse", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		wantErr(t, s.DeleteEndpoint(ctx, f.endpoint.Name), garrison.ErrInvalid)
		must(t, s.DeletePool(ctx, f.pool.ID))
		must(t, s.DeleteEntity(ctx, f.entity.ID))
		wantErr(t, s.DeleteEndpoint(ctx, f.endpoint.Name), garrison.ErrInvalid)
		must(t, s.DeleteCredentials(ctx, f.creds.ID))
		must(t, s.DeleteEndpoint(ctx, "GHES.example.com"))
		_, err := s.Endpoint(ctx, f.endpoint.Name)
		wantErr(t, err, garrison.ErrNotFound)
	}},
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }

package storetest

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var credentialsCases = []testCase{
	{"Credentials/CreateGet", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		app := garrison.Credentials{
			Name: "app", ForgeType: garrison.GitHub, AuthType: garrison.AuthApp, Endpoint: "GitHub.com",
			AppID: 12, InstallationID: 34, PrivateKey: []byte("-----BEGIN RSA PRIVATE KEY-----"),
		}
		c := ok(s.CreateCredentials(ctx, app)).get(t)
		if c.ID == 0 {
			t.Fatal("no id")
		}
		checkStamps(t, c.CreatedAt, c.UpdatedAt)
		wantEqual(t, "endpoint", c.Endpoint, garrison.GitHubComEndpoint)
		got := ok(s.Credentials(ctx, c.ID)).get(t)
		wantEqual(t, "name", got.Name, "app")
		wantEqual(t, "endpoint", got.Endpoint, garrison.GitHubComEndpoint)
		wantEqual(t, "auth", got.AuthType, garrison.AuthApp)
		wantEqual(t, "app id", got.AppID, int64(12))
		wantEqual(t, "installation id", got.InstallationID, int64(34))
		wantEqual(t, "private key", string(got.PrivateKey), string(app.PrivateKey))
		wantEqual(t, "created at", got.CreatedAt, c.CreatedAt)
		pat := ok(s.CreateCredentials(ctx, newCreds("pat", "github.com"))).get(t)
		if pat.ID == c.ID {
			t.Fatal("ids not unique")
		}
		wantEqual(t, "pat", ok(s.Credentials(ctx, pat.ID)).get(t).PAT, "pat-pat")
	}},
	{"Credentials/Errors", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		ok(s.CreateEndpoint(ctx, newEndpoint("gitea.example.com", garrison.Gitea))).get(t)
		ok(s.CreateCredentials(ctx, newCreds("Main", "github.com"))).get(t)
		giteaCreds := newCreds("main", "gitea.example.com")
		giteaCreds.ForgeType = garrison.Gitea
		for _, tc := range []struct {
			name string
			err  error
			want error
		}{
			{"duplicate other case", second(s.CreateCredentials(ctx, newCreds("MAIN", "github.com"))), garrison.ErrConflict},
			{"same name other forge", second(s.CreateCredentials(ctx, giteaCreds)), nil},
			{"missing endpoint", second(s.CreateCredentials(ctx, newCreds("x", "missing"))), garrison.ErrNotFound},
			{"endpoint of other forge", second(s.CreateCredentials(ctx, newCreds("y", "gitea.example.com"))), garrison.ErrNotFound},
			{"get missing", second(s.Credentials(ctx, 999999)), garrison.ErrNotFound},
			{"update missing", second(s.UpdateCredentials(ctx, 999999, func(*garrison.Credentials) error { return nil })), garrison.ErrNotFound},
			{"delete missing", s.DeleteCredentials(ctx, 999999), nil},
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
	{"Credentials/List", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		ok(s.CreateEndpoint(ctx, newEndpoint("gitea.example.com", garrison.Gitea))).get(t)
		ok(s.CreateCredentials(ctx, newCreds("a", "github.com"))).get(t)
		ok(s.CreateCredentials(ctx, newCreds("b", "github.com"))).get(t)
		g := newCreds("a", "gitea.example.com")
		g.ForgeType = garrison.Gitea
		ok(s.CreateCredentials(ctx, g)).get(t)
		for _, tc := range []struct {
			name string
			f    store.CredentialsFilter
			want int
		}{
			{"all", store.CredentialsFilter{}, 3},
			{"github", store.CredentialsFilter{ForgeType: garrison.GitHub}, 2},
			{"gitea", store.CredentialsFilter{ForgeType: garrison.Gitea}, 1},
			{"name", store.CredentialsFilter{Name: "A"}, 2},
			{"name and forge", store.CredentialsFilter{Name: "A", ForgeType: garrison.Gitea}, 1},
			{"endpoint", store.CredentialsFilter{Endpoint: "GitHub.com"}, 2},
			{"none", store.CredentialsFilter{Name: "zzz"}, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				list := ok(s.ListCredentials(ctx, tc.f)).get(t)
				if list == nil {
					t.Fatal("nil slice")
				}
				wantEqual(t, "count", len(list), tc.want)
				for _, c := range list {
					if c.PAT == "" {
						t.Fatalf("credentials %s read without their PAT", c.Name)
					}
				}
			})
		}
	}},
	{"Credentials/Update", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		c := ok(s.CreateCredentials(ctx, newCreds("a", "github.com"))).get(t)
		ok(s.CreateCredentials(ctx, newCreds("b", "github.com"))).get(t)
		_, err := s.UpdateCredentials(ctx, c.ID, func(c *garrison.Credentials) error {
			c.PAT = "discarded"
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		wantEqual(t, "pat", ok(s.Credentials(ctx, c.ID)).get(t).PAT, c.PAT)
		_, err = s.UpdateCredentials(ctx, c.ID, func(c *garrison.Credentials) error {
			c.Name = "B"
			return nil
		})
		wantErr(t, err, garrison.ErrConflict)
		_, err = s.UpdateCredentials(ctx, c.ID, func(c *garrison.Credentials) error {
			c.AuthType = garrison.AuthApp
			return nil
		})
		wantErr(t, err, garrison.ErrInvalid)
		ok(s.UpdateCredentials(ctx, c.ID, func(c *garrison.Credentials) error {
			c.Name, c.Description, c.PAT = "renamed", "desc", "new-token"
			return nil
		})).get(t)
		got := ok(s.Credentials(ctx, c.ID)).get(t)
		wantEqual(t, "name", got.Name, "renamed")
		wantEqual(t, "description", got.Description, "desc")
		wantEqual(t, "pat", got.PAT, "new-token")
	}},
	{"Credentials/DeleteInUse", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		wantErr(t, s.DeleteCredentials(ctx, f.creds.ID), garrison.ErrInvalid)
		must(t, s.DeletePool(ctx, f.pool.ID))
		must(t, s.DeleteEntity(ctx, f.entity.ID))
		must(t, s.DeleteCredentials(ctx, f.creds.ID))
		_, err := s.Credentials(ctx, f.creds.ID)
		wantErr(t, err, garrison.ErrNotFound)
	}},
}

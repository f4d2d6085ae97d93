package storetest

import (
	"fmt"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var entityCases = []testCase{
	{"Entities/CreateGet", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		checkStamps(t, f.entity.CreatedAt, f.entity.UpdatedAt)
		got := ok(s.Entity(ctx, f.entity.ID)).get(t)
		wantEqual(t, "type", got.Type, garrison.Repository)
		wantEqual(t, "full name", got.FullName(), "acme/app")
		wantEqual(t, "credentials id", got.CredentialsID, f.creds.ID)
		wantEqual(t, "credentials name", got.CredentialsName, "creds")
		wantEqual(t, "endpoint", got.Endpoint, f.endpoint.Name)
		wantEqual(t, "forge", got.ForgeType, garrison.GitHub)
		wantEqual(t, "secret", got.WebhookSecret, "hook-app")
		wantEqual(t, "balancer", got.Balancer, garrison.RoundRobin)
		wantEqual(t, "created at", got.CreatedAt, f.entity.CreatedAt)
		wantEqual(t, "create result endpoint", f.entity.Endpoint, f.endpoint.Name)
	}},
	{"Entities/Errors", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		other := ok(s.CreateCredentials(ctx, newCreds("other", "github.com"))).get(t)
		org := garrison.Entity{Type: garrison.Organization, Name: "acme", CredentialsID: f.creds.ID, WebhookSecret: "s"}
		for _, tc := range []struct {
			name string
			err  error
			want error
		}{
			{"duplicate other case", second(s.CreateEntity(ctx, newRepo("ACME", "App", f.creds.ID))), garrison.ErrConflict},
			{"same repo other endpoint", second(s.CreateEntity(ctx, newRepo("acme", "app", other.ID))), nil},
			{"org of the same name", second(s.CreateEntity(ctx, org)), nil},
			{"missing credentials", second(s.CreateEntity(ctx, newRepo("x", "y", 999999))), garrison.ErrNotFound},
			{"get missing", second(s.Entity(ctx, "missing")), garrison.ErrNotFound},
			{"update missing", second(s.UpdateEntity(ctx, "missing", func(*garrison.Entity) error { return nil })), garrison.ErrNotFound},
			{"delete missing", s.DeleteEntity(ctx, "missing"), garrison.ErrNotFound},
			{"delete with pools", s.DeleteEntity(ctx, f.entity.ID), garrison.ErrInvalid},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.want == nil {
					must(t, tc.err)
					return
				}
				wantErr(t, tc.err, tc.want)
			})
		}
		_, err := s.CreateEntity(ctx, newRepo("acme", "APP", f.creds.ID))
		if want := "repository acme/APP already exists"; garrison.MessageOf(err) != want {
			t.Fatalf("message %q, want %q", garrison.MessageOf(err), want)
		}
	}},
	{"Entities/List", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		other := ok(s.CreateCredentials(ctx, newCreds("other", "github.com"))).get(t)
		ok(s.CreateEntity(ctx, newRepo("acme", "lib", f.creds.ID))).get(t)
		ok(s.CreateEntity(ctx, newRepo("acme", "app", other.ID))).get(t)
		ok(s.CreateEntity(ctx, garrison.Entity{Type: garrison.Organization, Name: "acme", CredentialsID: other.ID})).get(t)
		ok(s.CreateEntity(ctx, garrison.Entity{Type: garrison.Enterprise, Name: "big", CredentialsID: other.ID})).get(t)
		for _, tc := range []struct {
			name string
			f    store.EntityFilter
			want int
		}{
			{"all", store.EntityFilter{}, 5},
			{"repositories", store.EntityFilter{Type: garrison.Repository}, 3},
			{"owner", store.EntityFilter{Type: garrison.Repository, Owner: "ACME"}, 3},
			{"owner and name", store.EntityFilter{Owner: "acme", Name: "APP"}, 2},
			{"endpoint", store.EntityFilter{Type: garrison.Repository, Name: "app", Endpoint: "GITHUB.COM"}, 1},
			{"orgs by name", store.EntityFilter{Type: garrison.Organization, Name: "Acme"}, 1},
			{"enterprise", store.EntityFilter{Type: garrison.Enterprise}, 1},
			{"none", store.EntityFilter{Name: "nothing"}, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				list := ok(s.ListEntities(ctx, tc.f)).get(t)
				if list == nil {
					t.Fatal("nil slice")
				}
				wantEqual(t, "count", len(list), tc.want)
				for _, e := range list {
					if e.CredentialsName == "" || e.Endpoint == "" || e.ForgeType == "" {
						t.Fatalf("entity %s read without credentials fields: %+v", e.ID, e)
					}
				}
			})
		}
	}},
	{"Entities/Update", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		same := ok(s.CreateCredentials(ctx, newCreds("same-endpoint", f.endpoint.Name))).get(t)
		elsewhere := ok(s.CreateCredentials(ctx, newCreds("elsewhere", "github.com"))).get(t)
		_, err := s.UpdateEntity(ctx, f.entity.ID, func(e *garrison.Entity) error {
			e.WebhookSecret = "discarded"
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		for _, tc := range []struct {
			name  string
			creds uint
			want  error
		}{{"endpoint mismatch", elsewhere.ID, garrison.ErrInvalid}, {"missing credentials", 999999, garrison.ErrNotFound}} {
			_, err := s.UpdateEntity(ctx, f.entity.ID, func(e *garrison.Entity) error {
				e.CredentialsID = tc.creds
				return nil
			})
			wantErr(t, err, tc.want)
		}
		got := ok(s.UpdateEntity(ctx, f.entity.ID, func(e *garrison.Entity) error {
			e.CredentialsID = same.ID
			e.WebhookSecret = "new-secret"
			e.Balancer = garrison.Pack
			e.AgentMode = true
			e.Type = garrison.Enterprise
			return nil
		})).get(t)
		wantEqual(t, "credentials name", got.CredentialsName, "same-endpoint")
		wantEqual(t, "type", got.Type, garrison.Repository)
		again := ok(s.Entity(ctx, f.entity.ID)).get(t)
		wantEqual(t, "credentials", again.CredentialsID, same.ID)
		wantEqual(t, "credentials name", again.CredentialsName, "same-endpoint")
		wantEqual(t, "secret", again.WebhookSecret, "new-secret")
		wantEqual(t, "balancer", again.Balancer, garrison.Pack)
		wantEqual(t, "agent mode", again.AgentMode, true)
		wantEqual(t, "created at", again.CreatedAt, f.entity.CreatedAt)
	}},
	{"Entities/DeleteRemovesEvents", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		must(t, s.AddEntityEvent(ctx, f.entity.ID, garrison.Event{Message: "hello"}))
		must(t, s.DeletePool(ctx, f.pool.ID))
		must(t, s.DeleteEntity(ctx, f.entity.ID))
		_, err := s.Entity(ctx, f.entity.ID)
		wantErr(t, err, garrison.ErrNotFound)
		_, err = s.EntityEvents(ctx, f.entity.ID, 10)
		wantErr(t, err, garrison.ErrNotFound)
	}},
}

var eventCases = []testCase{
	{"EntityEvents/NewestKeptOldestFirst", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		wantEqual(t, "no events", len(ok(s.EntityEvents(ctx, f.entity.ID, 10)).get(t)), 0)
		const n = 120
		for i := range n {
			must(t, s.AddEntityEvent(ctx, f.entity.ID, garrison.Event{
				Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: fmt.Sprint("event ", i),
			}))
		}
		all := ok(s.EntityEvents(ctx, f.entity.ID, 1000)).get(t)
		wantEqual(t, "kept", len(all), 100)
		wantEqual(t, "oldest kept", all[0].Message, fmt.Sprint("event ", n-100))
		wantEqual(t, "newest", all[len(all)-1].Message, fmt.Sprint("event ", n-1))
		wantEqual(t, "level", all[0].Level, garrison.LevelInfo)
		checkStamps(t, all[0].CreatedAt, all[len(all)-1].CreatedAt)
		last := ok(s.EntityEvents(ctx, f.entity.ID, 3)).get(t)
		wantEqual(t, "limited", len(last), 3)
		wantEqual(t, "limited oldest", last[0].Message, fmt.Sprint("event ", n-3))
		wantEqual(t, "limited newest", last[2].Message, fmt.Sprint("event ", n-1))
		if last[0].ID >= last[1].ID {
			t.Fatalf("event ids not increasing: %d, %d", last[0].ID, last[1].ID)
		}
		wantErr(t, s.AddEntityEvent(ctx, "missing", garrison.Event{Message: "x"}), garrison.ErrNotFound)
	}},
}

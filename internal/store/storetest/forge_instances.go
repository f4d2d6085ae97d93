package storetest

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// giteaCreds creates a Gitea endpoint and PAT credentials on it.
func giteaCreds(t *testing.T, s store.Store, endpoint, name string) garrison.Credentials {
	t.Helper()
	ctx := t.Context()
	ep := newEndpoint(endpoint, garrison.Gitea)
	ep.UploadBaseURL, ep.APIBaseURL = "", "https://"+endpoint+"/api/v1"
	ok(s.CreateEndpoint(ctx, ep)).get(t)
	c := newCreds(name, endpoint)
	c.ForgeType = garrison.Gitea
	return ok(s.CreateCredentials(ctx, c)).get(t)
}

// forgeInstanceCases cover forge instances: entities of type garrison.ForgeInstance,
// one per Gitea endpoint, named after it.
var forgeInstanceCases = []testCase{
	{"ForgeInstances/CreateGetList", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		c := giteaCreds(t, s, "gitea.example.com", "gt")
		// The name and owner given are replaced by the endpoint's name.
		fi := ok(s.CreateEntity(ctx, garrison.Entity{Type: garrison.ForgeInstance, Owner: "x", Name: "ignored",
			CredentialsID: c.ID, WebhookSecret: "sys", Balancer: garrison.Pack})).get(t)
		got := ok(s.Entity(ctx, fi.ID)).get(t)
		wantEqual(t, "type", got.Type, garrison.ForgeInstance)
		wantEqual(t, "name", got.Name, "gitea.example.com")
		wantEqual(t, "owner", got.Owner, "")
		wantEqual(t, "endpoint", got.Endpoint, "gitea.example.com")
		wantEqual(t, "forge", got.ForgeType, garrison.Gitea)
		wantEqual(t, "secret", got.WebhookSecret, "sys")
		wantEqual(t, "balancer", got.Balancer, garrison.Pack)
		list := ok(s.ListEntities(ctx, store.EntityFilter{Type: garrison.ForgeInstance})).get(t)
		if len(list) != 1 || list[0].ID != fi.ID {
			t.Fatalf("forge instances listed: %+v", list)
		}
		byEndpoint := ok(s.ListEntities(ctx, store.EntityFilter{Type: garrison.ForgeInstance, Endpoint: "GITEA.example.com"})).get(t)
		wantEqual(t, "listed by endpoint", len(byEndpoint), 1)
		repos := ok(s.ListEntities(ctx, store.EntityFilter{Type: garrison.Repository})).get(t)
		if len(repos) != 1 || repos[0].ID != f.entity.ID {
			t.Fatalf("repositories listed: %+v", repos)
		}
		// Pools and instances work as for any entity.
		p := ok(s.CreatePool(ctx, newPool(fi.ID, "ubuntu"))).get(t)
		wantEqual(t, "pool entity type", p.EntityType, garrison.ForgeInstance)
		ok(s.CreateInstance(ctx, newInstance("fi-runner", p.ID))).get(t)
		insts := ok(s.ListInstances(ctx, store.InstanceFilter{EntityID: fi.ID})).get(t)
		wantEqual(t, "instances of the forge instance", len(insts), 1)
		wantErr(t, s.DeleteEntity(ctx, fi.ID), garrison.ErrInvalid)
	}},
	{"ForgeInstances/Rules", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		c := giteaCreds(t, s, "gitea.example.com", "gt")
		c2 := ok(s.CreateCredentials(ctx, garrison.Credentials{Name: "gt2", ForgeType: garrison.Gitea,
			AuthType: garrison.AuthPAT, Endpoint: "gitea.example.com", PAT: "p2"})).get(t)
		fi := ok(s.CreateEntity(ctx, garrison.Entity{Type: garrison.ForgeInstance, CredentialsID: c.ID, WebhookSecret: "s"})).get(t)
		_, err := s.CreateEntity(ctx, garrison.Entity{Type: garrison.ForgeInstance, CredentialsID: c2.ID, WebhookSecret: "s"})
		wantErr(t, err, garrison.ErrConflict)
		wantEqual(t, "conflict message", garrison.MessageOf(err), "forge instance for endpoint gitea.example.com already exists")
		// A GitHub endpoint has no forge instance.
		_, err = s.CreateEntity(ctx, garrison.Entity{Type: garrison.ForgeInstance, CredentialsID: f.creds.ID, WebhookSecret: "s"})
		wantErr(t, err, garrison.ErrInvalid)
		// A repository on the same Gitea server is another entity.
		repo := newRepo("org1", "repo1", c.ID)
		ok(s.CreateEntity(ctx, repo)).get(t)
		// Updating keeps the name; other credentials of the same endpoint are fine.
		up := ok(s.UpdateEntity(ctx, fi.ID, func(e *garrison.Entity) error {
			e.Name, e.CredentialsID, e.WebhookSecret = "renamed", c2.ID, "new"
			return nil
		})).get(t)
		wantEqual(t, "name after update", up.Name, "gitea.example.com")
		wantEqual(t, "credentials after update", up.CredentialsName, "gt2")
		wantErr(t, s.DeleteCredentials(ctx, c2.ID), garrison.ErrInvalid)
		must(t, s.DeleteEntity(ctx, fi.ID))
		wantErr(t, second(s.Entity(ctx, fi.ID)), garrison.ErrNotFound)
	}},
}

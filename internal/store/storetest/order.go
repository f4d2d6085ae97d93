package storetest

import (
	"slices"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// orderCases check that every list comes in creation order, oldest first, as GARM's do:
// rows are created in an order that neither their names, their IDs nor their priorities
// follow.
var orderCases = []testCase{
	{"Order/EndpointsAndCredentials", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		for _, e := range []garrison.Endpoint{
			newEndpoint("zeta.example.com", garrison.GitHub), newEndpoint("gitea.example.com", garrison.Gitea),
			newEndpoint("alpha.example.com", garrison.GitHub), newEndpoint("Mike.example.com", garrison.GitHub),
		} {
			ok(s.CreateEndpoint(ctx, e)).get(t)
		}
		endpoints := func(ft garrison.ForgeType) []string {
			return names(ok(s.ListEndpoints(ctx, ft)).get(t), func(e garrison.Endpoint) string { return e.Name })
		}
		wantOrder(t, "github endpoints", endpoints(garrison.GitHub), "github.com", "zeta.example.com", "alpha.example.com", "Mike.example.com")
		wantOrder(t, "all endpoints", endpoints(""), "github.com", "zeta.example.com", "gitea.example.com", "alpha.example.com", "Mike.example.com")
		for _, name := range []string{"zulu", "gamma", "alpha", "Mike"} {
			c := newCreds(name, "zeta.example.com")
			if name == "gamma" {
				c.ForgeType, c.Endpoint = garrison.Gitea, "gitea.example.com"
			}
			ok(s.CreateCredentials(ctx, c)).get(t)
		}
		creds := func(f store.CredentialsFilter) []string {
			return names(ok(s.ListCredentials(ctx, f)).get(t), func(c garrison.Credentials) string { return c.Name })
		}
		wantOrder(t, "github credentials", creds(store.CredentialsFilter{ForgeType: garrison.GitHub}), "zulu", "alpha", "Mike")
		wantOrder(t, "all credentials", creds(store.CredentialsFilter{}), "zulu", "gamma", "alpha", "Mike")
	}},
	{"Order/EntitiesPoolsInstances", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s) // acme/app, with a pool and no instance
		ents := map[string]garrison.Entity{"acme/app": f.entity}
		for _, e := range []garrison.Entity{
			newRepo("zoo", "zebra", f.creds.ID),
			{Type: garrison.Organization, Name: "zorg", CredentialsID: f.creds.ID, WebhookSecret: "s"},
			newRepo("acme", "apple", f.creds.ID),
			{Type: garrison.Enterprise, Name: "zent", CredentialsID: f.creds.ID, WebhookSecret: "s"},
			{Type: garrison.Organization, Name: "aorg", CredentialsID: f.creds.ID, WebhookSecret: "s"},
			{Type: garrison.Enterprise, Name: "aent", CredentialsID: f.creds.ID, WebhookSecret: "s"},
		} {
			e = ok(s.CreateEntity(ctx, e)).get(t)
			ents[e.FullName()] = e
		}
		entities := func(typ garrison.EntityType) []string {
			return names(ok(s.ListEntities(ctx, store.EntityFilter{Type: typ})).get(t), garrison.Entity.FullName)
		}
		wantOrder(t, "repositories", entities(garrison.Repository), "acme/app", "zoo/zebra", "acme/apple")
		wantOrder(t, "organizations", entities(garrison.Organization), "zorg", "aorg")
		wantOrder(t, "enterprises", entities(garrison.Enterprise), "zent", "aent")
		wantOrder(t, "entities", entities(""), "acme/app", "zoo/zebra", "zorg", "acme/apple", "zent", "aorg", "aent")

		pools := map[string]garrison.Pool{"app-0": f.pool}
		for _, p := range []struct {
			name, entity string
			priority     uint
		}{{"app-10", "acme/app", 10}, {"zorg-0", "zorg", 0}, {"app-5", "acme/app", 5}, {"aent-20", "aent", 20}} {
			np := newPool(ents[p.entity].ID, "linux")
			np.Priority = p.priority
			pools[p.name] = ok(s.CreatePool(ctx, np)).get(t)
		}
		poolNames := func(f store.PoolFilter) []string {
			return names(ok(s.ListPools(ctx, f)).get(t), func(p garrison.Pool) string { return nameOf(pools, p.ID) })
		}
		wantOrder(t, "pools of acme/app", poolNames(store.PoolFilter{EntityID: f.entity.ID}), "app-0", "app-10", "app-5")
		wantOrder(t, "pools", poolNames(store.PoolFilter{}), "app-0", "app-10", "zorg-0", "app-5", "aent-20")

		for _, i := range []struct{ name, pool string }{
			{"zz-runner", "app-5"}, {"aa-runner", "zorg-0"}, {"mm-runner", "app-0"}, {"bb-runner", "app-5"},
		} {
			ok(s.CreateInstance(ctx, newInstance(i.name, pools[i.pool].ID))).get(t)
		}
		insts := func(f store.InstanceFilter) []string {
			return names(ok(s.ListInstances(ctx, f)).get(t), func(i garrison.Instance) string { return i.Name })
		}
		wantOrder(t, "instances", insts(store.InstanceFilter{}), "zz-runner", "aa-runner", "mm-runner", "bb-runner")
		wantOrder(t, "instances of acme/app", insts(store.InstanceFilter{EntityID: f.entity.ID}), "zz-runner", "mm-runner", "bb-runner")
		wantOrder(t, "instances of a pool", insts(store.InstanceFilter{PoolID: pools["app-5"].ID}), "zz-runner", "bb-runner")
	}},
}

// names maps a list to names.
func names[T any](list []T, name func(T) string) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		out = append(out, name(v))
	}
	return out
}

// nameOf returns the key of the pool with the given ID.
func nameOf(pools map[string]garrison.Pool, id string) string {
	for name, p := range pools {
		if p.ID == id {
			return name
		}
	}
	return id
}

func wantOrder(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s listed as %v, want %v", what, got, want)
	}
}

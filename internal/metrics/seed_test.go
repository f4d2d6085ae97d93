package metrics

import (
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// fixture is a real SQLite store with one repository, one organization, a pool of the
// repository and an instance in it.
type fixture struct {
	st        store.Store
	repo, org garrison.Entity
	pool      garrison.Pool
	inst      garrison.Instance
}

// result holds a value and the error that came with it, for ok(...).get(t).
type result[T any] struct {
	v   T
	err error
}

func ok[T any](v T, err error) result[T] { return result[T]{v, err} }

func (r result[T]) get(t *testing.T) T {
	t.Helper()
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.v
}

func seed(t *testing.T) fixture {
	t.Helper()
	ctx := t.Context()
	st := ok(sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer("p"))).get(t)
	t.Cleanup(func() { st.Close() })
	cred := ok(st.CreateCredentials(ctx, garrison.Credentials{Name: "pat1", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "github.com", PAT: "tok"})).get(t)
	var f fixture
	f.st = st
	f.repo = ok(st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "widgets",
		CredentialsID: cred.ID, WebhookSecret: "s3cret-s3cret", Balancer: garrison.RoundRobin})).get(t)
	f.org = ok(st.CreateEntity(ctx, garrison.Entity{Type: garrison.Organization, Name: "acme",
		CredentialsID: cred.ID, WebhookSecret: "s3cret-s3cret", Balancer: garrison.RoundRobin})).get(t)
	f.pool = ok(st.CreatePool(ctx, garrison.Pool{EntityID: f.repo.ID, EntityType: garrison.Repository,
		ProviderName: "sim", RunnerPrefix: "garm", MaxRunners: 4, MinIdleRunners: 1, Image: "ubuntu", Flavor: "small",
		OSType: "linux", OSArch: "amd64", Enabled: true, Tags: []garrison.Tag{{Name: "x64"}, {Name: "lab"}}})).get(t)
	f.inst = ok(st.CreateInstance(ctx, garrison.Instance{Name: "garm-abc", PoolID: f.pool.ID, ProviderName: "sim",
		OSType: "linux", OSArch: "amd64", Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle})).get(t)
	return f
}

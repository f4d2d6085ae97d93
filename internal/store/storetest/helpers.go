package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// errCallback is returned by update callbacks that must abort the update.
var errCallback = errors.New("storetest: callback refused")

// must fails the test at once on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// result holds the two results of a store call; ok(s.Call(...)).get(t) fails the test on
// an error and returns the value.
type result[T any] struct {
	v   T
	err error
}

func ok[T any](v T, err error) result[T] { return result[T]{v, err} }

func (r result[T]) get(t *testing.T) T {
	t.Helper()
	must(t, r.err)
	return r.v
}

// wantErr checks that err matches target with errors.Is.
func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("got error %v, want %v", err, describe(target))
	}
}

func describe(err error) string {
	var e *garrison.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return fmt.Sprint(err)
}

// wantEqual fails when got != want.
func wantEqual[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// checkStamps checks the store set UTC timestamps around now.
func checkStamps(t *testing.T, created, updated time.Time) {
	t.Helper()
	for _, ts := range []time.Time{created, updated} {
		if ts.IsZero() || ts.Location() != time.UTC {
			t.Fatalf("timestamp %v: want non-zero UTC", ts)
		}
		if d := time.Since(ts); d < -time.Minute || d > time.Minute {
			t.Fatalf("timestamp %v is not around now", ts)
		}
	}
	if updated.Before(created) {
		t.Fatalf("updated_at %v before created_at %v", updated, created)
	}
}

// fixture is a chain of rows tests build on: an endpoint, credentials, an entity, a pool.
type fixture struct {
	endpoint garrison.Endpoint
	creds    garrison.Credentials
	entity   garrison.Entity
	pool     garrison.Pool
}

func newEndpoint(name string, typ garrison.ForgeType) garrison.Endpoint {
	return garrison.Endpoint{
		Name: name, Description: "test endpoint", Type: typ, BaseURL: "https://" + name,
		APIBaseURL: "https://" + name + "/api/v3/", UploadBaseURL: "https://" + name + "/uploads/",
		CACertBundle: []byte("-----BEGIN CERTIFICATE-----\n"),
	}
}

func newCreds(name, endpoint string) garrison.Credentials {
	return garrison.Credentials{
		Name: name, Description: "test credentials", ForgeType: garrison.GitHub, AuthType: garrison.AuthPAT,
		Endpoint: endpoint, PAT: "pat-" + name,
	}
}

func newRepo(owner, name string, credsID uint) garrison.Entity {
	return garrison.Entity{
		Type: garrison.Repository, Owner: owner, Name: name, CredentialsID: credsID,
		WebhookSecret: "hook-" + name, Balancer: garrison.RoundRobin,
	}
}

func newPool(entityID string, tags ...string) garrison.Pool {
	return garrison.Pool{
		EntityID: entityID, ProviderName: "lxd", RunnerPrefix: "garm", MaxRunners: 5, MinIdleRunners: 1,
		Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		Tags: garrison.TagsFromNames(tags), Enabled: true, ExtraSpecs: []byte(`{"a":1}`),
	}
}

func newInstance(name, poolID string) garrison.Instance {
	return garrison.Instance{
		Name: name, PoolID: poolID, ProviderName: "lxd", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		Status: garrison.InstancePendingCreate, RunnerStatus: garrison.RunnerPending,
	}
}

// setup creates an endpoint "ghes.example.com", credentials "creds", repository acme/app
// and a pool tagged linux, x64.
func setup(t *testing.T, s store.Store) fixture {
	t.Helper()
	ctx := t.Context()
	var f fixture
	f.endpoint = ok(s.CreateEndpoint(ctx, newEndpoint("ghes.example.com", garrison.GitHub))).get(t)
	f.creds = ok(s.CreateCredentials(ctx, newCreds("creds", f.endpoint.Name))).get(t)
	f.entity = ok(s.CreateEntity(ctx, newRepo("acme", "app", f.creds.ID))).get(t)
	f.pool = ok(s.CreatePool(ctx, newPool(f.entity.ID, "linux", "x64"))).get(t)
	return f
}

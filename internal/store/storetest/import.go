package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Ids of the import snapshot.
const (
	impController = "8decccd0-9ccc-402d-a358-18365f07b461"
	impUser       = "13362344-1bd2-472d-96b3-fe724960aabe"
	impRepo       = "a9efdfeb-f835-4c99-8244-a70b130ef1a0"
	impGiteaRepo  = "36980247-2373-4034-9b8c-1d1338d64273"
	impPool       = "496129b2-03f4-4d04-aa1b-709766f3b784"
	impInstance   = "4fbe97f5-8bc0-4ca6-8d1d-2db520f5cc30"
	impTagLinux   = "12913b58-1f31-4405-b6fc-ebad46471656"
	impTagX64     = "0bf55e6a-7763-4f37-bb57-3710fe056155"
)

// importSnapshot is a small installation: a GHES and a Gitea endpoint, github.com
// redefined, three credentials with kept ids, a repository on each forge, a pool, an
// instance and two jobs.
func importSnapshot() store.Snapshot {
	created := time.Date(2026, 11, 24, 12, 20, 30, 773560000, time.UTC)
	ghes := newEndpoint("acme-ghes", garrison.GitHub)
	gitea := newEndpoint("acme-gitea", garrison.Gitea)
	gitea.UploadBaseURL, gitea.ToolsMetadataURL = "", "http://gitea.example/releases"
	gh := garrison.Endpoint{Name: "github.com", Type: garrison.GitHub, Description: "The github.com endpoint",
		BaseURL: garrison.GitHubComBaseURL, APIBaseURL: garrison.GitHubComAPIBaseURL, UploadBaseURL: garrison.GitHubComUploadBaseURL}
	pat := newCreds("acme-pat", "acme-ghes")
	pat.ID, pat.CreatedAt = 1, created
	app := garrison.Credentials{ID: 2, Name: "acme-app", ForgeType: garrison.GitHub, AuthType: garrison.AuthApp,
		Endpoint: "acme-ghes", AppID: 101101, InstallationID: 202202, PrivateKey: []byte("-----BEGIN RSA PRIVATE KEY-----\nimported\n")}
	giteaPAT := newCreds("acme-gitea-pat", "acme-gitea")
	giteaPAT.ID, giteaPAT.ForgeType = 3, garrison.Gitea
	repo := newRepo("acme", "widgets", 1)
	repo.ID, repo.Balancer, repo.CreatedAt, repo.WebhookSecret = impRepo, garrison.Pack, created, "imported-hook-secret"
	giteaRepo := newRepo("acme", "gitrepo", 3)
	giteaRepo.ID = impGiteaRepo
	pool := newPool(impRepo, "x64", "linux")
	pool.ID, pool.Generation, pool.Priority, pool.RunnerPrefix, pool.CreatedAt = impPool, 4, 10, "wid", created
	inst := newInstance("wid-e7ublmqlzzu2", impPool)
	inst.ID, inst.ProviderID, inst.AgentID, inst.Status, inst.RunnerStatus = impInstance, "sim-wid-e7ublmqlzzu2", 117, garrison.InstanceRunning, garrison.RunnerActive
	inst.JITConfig, inst.Generation, inst.JobID, inst.CreatedAt = map[string]string{".runner": "eyJhIjoxfQ=="}, 4, 120, created
	inst.Addresses = []garrison.Address{{Address: "127.0.0.1", Type: "private"}}
	inst.StatusMessages = []garrison.Event{
		{CreatedAt: created, Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "Downloading actions runner"},
		{CreatedAt: created.Add(time.Second), Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "runner successfully installed"},
	}
	return store.Snapshot{
		Controller: garrison.Controller{ID: impController, MetadataURL: "http://garm:9510/api/v1/metadata",
			CallbackURL: "http://garm:9510/api/v1/callbacks", WebhookURL: "http://garm:9510/webhooks",
			AgentURL: "http://garm:9510/agent", MinimumJobAgeBackoff: 45, AgentReleasesURL: "http://releases"},
		Users: []garrison.User{{ID: impUser, Username: "admin", Email: "admin@acme.example", FullName: "Acme Admin",
			PasswordHash: "$2a$10$UP4TDUoSayDEcHOOmme4ReQAuWQDclM1MxlbR3ducBPXrLuJRpXhW", Enabled: true, IsAdmin: true,
			Generation: 3, CreatedAt: created}},
		Endpoints:   []garrison.Endpoint{ghes, gitea, gh},
		Credentials: []garrison.Credentials{pat, app, giteaPAT},
		Entities:    []garrison.Entity{repo, giteaRepo},
		EntityEvents: map[string][]garrison.Event{impRepo: {
			{CreatedAt: created, Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "successfully updated tools"},
		}},
		Tags:      []garrison.Tag{{ID: impTagLinux, Name: "linux"}, {ID: impTagX64, Name: "x64"}},
		Pools:     []garrison.Pool{pool},
		Instances: []garrison.Instance{inst},
		Jobs: []garrison.Job{
			{ID: 120, RunID: 119, Action: garrison.JobInProgress, Status: "in_progress", Name: "build", RunnerID: 117,
				RunnerName: "wid-e7ublmqlzzu2", Labels: []string{"linux", "x64"}, EntityID: impRepo, EntityType: garrison.Repository,
				StartedAt: created, CreatedAt: created},
			{ID: 136, RunID: 135, Action: garrison.JobQueued, Status: "queued", Name: "build",
				Labels: []string{"linux", "ubuntu"}, EntityID: impRepo, EntityType: garrison.Repository},
		},
	}
}

var importCases = []testCase{
	{"Import/KeepsIdentities", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		snap := importSnapshot()
		must(t, s.Import(ctx, snap))
		ctrl := ok(s.Controller(ctx)).get(t)
		wantEqual(t, "controller id", ctrl.ID, impController)
		wantEqual(t, "webhook url", ctrl.WebhookURLForController(), "http://garm:9510/webhooks/"+impController)
		wantEqual(t, "job age backoff", ctrl.MinimumJobAgeBackoff, uint(45))
		u := ok(s.UserByName(ctx, "admin")).get(t)
		wantEqual(t, "user id", u.ID, impUser)
		wantEqual(t, "generation", u.Generation, uint(3))
		wantEqual(t, "hash", u.PasswordHash, snap.Users[0].PasswordHash)
		wantEqual(t, "user created", u.CreatedAt, snap.Users[0].CreatedAt)
		gh := ok(s.Endpoint(ctx, "github.com")).get(t)
		wantEqual(t, "github.com description", gh.Description, "The github.com endpoint")
		pat := ok(s.Credentials(ctx, 1)).get(t)
		wantEqual(t, "pat", pat.PAT, "pat-acme-pat")
		wantEqual(t, "pat created", pat.CreatedAt, snap.Credentials[0].CreatedAt)
		app := ok(s.Credentials(ctx, 2)).get(t)
		wantEqual(t, "key", string(app.PrivateKey), string(snap.Credentials[1].PrivateKey))
		wantEqual(t, "gitea creds forge", ok(s.Credentials(ctx, 3)).get(t).ForgeType, garrison.Gitea)
		repo := ok(s.Entity(ctx, impRepo)).get(t)
		wantEqual(t, "webhook secret", repo.WebhookSecret, "imported-hook-secret")
		wantEqual(t, "balancer", repo.Balancer, garrison.Pack)
		wantEqual(t, "endpoint", repo.Endpoint, "acme-ghes")
		wantEqual(t, "gitea repo forge", ok(s.Entity(ctx, impGiteaRepo)).get(t).ForgeType, garrison.Gitea)
		evs := ok(s.EntityEvents(ctx, impRepo, 0)).get(t)
		if len(evs) != 1 || evs[0].Message != "successfully updated tools" || !evs[0].CreatedAt.Equal(snap.EntityEvents[impRepo][0].CreatedAt) {
			t.Fatalf("entity events %+v", evs)
		}
		checkImportedPool(t, s)
		checkImportedInstance(t, s, snap.Instances[0])
		checkImportedJobs(t, s)
	}},
	{"Import/SequencesAfter", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		must(t, s.Import(ctx, importSnapshot()))
		c := ok(s.CreateCredentials(ctx, newCreds("after", "github.com"))).get(t)
		if c.ID <= 3 {
			t.Fatalf("credentials created after the import got id %d, taken by an imported one", c.ID)
		}
		j := ok(s.UpsertJob(ctx, 999, func(*garrison.Job, bool) error { return nil })).get(t)
		wantEqual(t, "seq of the next job", j.Seq, int64(3))
		p := ok(s.CreatePool(ctx, newPool(impRepo, "LINUX", "gpu"))).get(t)
		wantEqual(t, "existing tag reused", p.Tags[0].ID, impTagLinux)
	}},
	{"Import/AllOrNothing", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		before := ok(s.Controller(ctx)).get(t)
		snap := importSnapshot()
		dup := snap.Instances[0]
		dup.ID = "99999999-0000-4000-8000-000000000000"
		snap.Instances = append(snap.Instances, dup) // same name: the last write fails
		wantErr(t, s.Import(ctx, snap), garrison.ErrConflict)
		wantEqual(t, "controller id", ok(s.Controller(ctx)).get(t).ID, before.ID)
		if has := ok(s.HasAdmin(ctx)).get(t); has {
			t.Fatal("a user was written")
		}
		wantEqual(t, "credentials", len(ok(s.ListCredentials(ctx, store.CredentialsFilter{})).get(t)), 0)
		wantEqual(t, "endpoints", len(ok(s.ListEndpoints(ctx, "")).get(t)), 1)
		wantEqual(t, "github.com untouched", ok(s.Endpoint(ctx, "github.com")).get(t).Description, "github.com")
		wantEqual(t, "jobs", len(ok(s.ListJobs(ctx, store.JobFilter{})).get(t)), 0)
	}},
	{"Import/Conflicts", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		for _, tc := range []struct {
			name string
			edit func(*store.Snapshot)
			want error
		}{
			{"credentials id taken", func(sn *store.Snapshot) { sn.Credentials[0].ID = f.creds.ID }, garrison.ErrConflict},
			{"endpoint of another forge", func(sn *store.Snapshot) { sn.Endpoints[0].Name = "acme-gitea"; sn.Endpoints = sn.Endpoints[:2] }, garrison.ErrConflict},
			{"used endpoint moved", func(sn *store.Snapshot) {
				sn.Endpoints = append(sn.Endpoints, garrison.Endpoint{Name: f.endpoint.Name, Type: garrison.GitHub, BaseURL: "https://elsewhere"})
			}, garrison.ErrConflict},
			{"missing credentials", func(sn *store.Snapshot) { sn.Entities[0].CredentialsID = 77 }, garrison.ErrNotFound},
			{"pool of a missing entity", func(sn *store.Snapshot) { sn.Pools[0].EntityID = f.pool.ID }, garrison.ErrNotFound},
			{"invalid pool", func(sn *store.Snapshot) { sn.Pools[0].MaxRunners = 0 }, garrison.ErrInvalid},
			{"entity on another endpoint", func(sn *store.Snapshot) { sn.Entities[0].Endpoint = "acme-gitea" }, garrison.ErrInvalid},
		} {
			t.Run(tc.name, func(t *testing.T) {
				snap := renumbered(importSnapshot())
				tc.edit(&snap)
				wantErr(t, s.Import(ctx, snap), tc.want)
				wantEqual(t, "credentials after", len(ok(s.ListCredentials(ctx, store.CredentialsFilter{})).get(t)), 1)
			})
		}
		must(t, s.Import(ctx, renumbered(importSnapshot()))) // merges into a store with data when nothing collides
		wantEqual(t, "pools", len(ok(s.ListPools(ctx, store.PoolFilter{})).get(t)), 2)
	}},
	{"Import/SecretsSealed", func(t *testing.T, b Backend, s store.Store) {
		if b.RawContains == nil {
			t.Skip("backend cannot search its raw data")
		}
		must(t, s.Import(t.Context(), importSnapshot()))
		if !b.RawContains(t, s, []byte("acme-ghes")) {
			t.Fatal("RawContains does not find plain data; the check would prove nothing")
		}
		for _, secret := range []string{"pat-acme-pat", "imported-hook-secret", "imported\n", "eyJhIjoxfQ=="} {
			if b.RawContains(t, s, []byte(secret)) {
				t.Errorf("%q is stored in clear", secret)
			}
		}
	}},
}

// renumbered moves the snapshot's credentials to ids 11 to 13, clear of a store's first
// credentials.
func renumbered(snap store.Snapshot) store.Snapshot {
	for i := range snap.Credentials {
		snap.Credentials[i].ID += 10
	}
	for i := range snap.Entities {
		snap.Entities[i].CredentialsID += 10
	}
	return snap
}

func checkImportedPool(t *testing.T, s store.Store) {
	t.Helper()
	p := ok(s.Pool(t.Context(), impPool)).get(t)
	wantEqual(t, "generation", p.Generation, uint64(4))
	wantEqual(t, "priority", p.Priority, uint(10))
	wantEqual(t, "prefix", p.RunnerPrefix, "wid")
	wantEqual(t, "entity type", p.EntityType, garrison.Repository)
	want := []garrison.Tag{{ID: impTagX64, Name: "x64"}, {ID: impTagLinux, Name: "linux"}}
	if !slices.Equal(p.Tags, want) {
		t.Fatalf("tags %+v, want %+v (ids kept, order kept)", p.Tags, want)
	}
}

func checkImportedInstance(t *testing.T, s store.Store, want garrison.Instance) {
	t.Helper()
	i := ok(s.InstanceByID(t.Context(), impInstance)).get(t)
	wantEqual(t, "name", i.Name, want.Name)
	wantEqual(t, "provider id", i.ProviderID, want.ProviderID)
	wantEqual(t, "agent id", i.AgentID, want.AgentID)
	wantEqual(t, "status", i.Status, garrison.InstanceRunning)
	wantEqual(t, "runner status", i.RunnerStatus, garrison.RunnerActive)
	wantEqual(t, "jit", i.JITConfig[".runner"], want.JITConfig[".runner"])
	wantEqual(t, "job", i.JobID, int64(120))
	wantEqual(t, "created", i.CreatedAt, want.CreatedAt)
	wantEqual(t, "addresses", len(i.Addresses), 1)
	if len(i.StatusMessages) != 2 || i.StatusMessages[1].Message != "runner successfully installed" {
		t.Fatalf("status messages %+v", i.StatusMessages)
	}
}

func checkImportedJobs(t *testing.T, s store.Store) {
	t.Helper()
	jobs := ok(s.ListJobs(t.Context(), store.JobFilter{})).get(t)
	if len(jobs) != 2 || jobs[0].ID != 120 || jobs[0].Seq != 1 || jobs[1].ID != 136 || jobs[1].Seq != 2 {
		t.Fatalf("jobs %+v", jobs)
	}
	wantEqual(t, "runner", jobs[0].RunnerName, "wid-e7ublmqlzzu2")
	wantEqual(t, "entity", jobs[0].EntityID, impRepo)
	if jobs[1].CreatedAt.IsZero() || !jobs[1].StartedAt.IsZero() {
		t.Fatalf("queued job times: created %v started %v", jobs[1].CreatedAt, jobs[1].StartedAt)
	}
}

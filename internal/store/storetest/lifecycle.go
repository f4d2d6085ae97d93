package storetest

import (
	"errors"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var lifecycleCases = []testCase{
	{"Lifecycle/Ping", func(t *testing.T, _ Backend, s store.Store) {
		must(t, s.Ping(t.Context()))
	}},
	{"Lifecycle/ReopenKeepsEverything", func(t *testing.T, b Backend, s store.Store) {
		if b.Reopen == nil {
			t.Skip("backend cannot reopen")
		}
		ctx := t.Context()
		f := setup(t, s)
		ctrl := ok(s.Controller(ctx)).get(t)
		ok(s.CreateAdmin(ctx, garrison.User{Username: "admin", IsAdmin: true})).get(t)
		in := newInstance("runner-1", f.pool.ID)
		in.JITConfig = map[string]string{"f": "v"}
		ok(s.CreateInstance(ctx, in)).get(t)
		must(t, s.AddInstanceEvent(ctx, "runner-1", garrison.Event{Message: "m"}))
		ok(s.UpsertJob(ctx, 1, func(*garrison.Job, bool) error { return nil })).get(t)
		must(t, s.Close())

		r, err := b.Reopen(t, s, NewSealer(Passphrase))
		must(t, err)
		wantEqual(t, "controller id", ok(r.Controller(ctx)).get(t).ID, ctrl.ID)
		wantEqual(t, "seal salt", string(ok(r.Controller(ctx)).get(t).SealSalt), string(ctrl.SealSalt))
		wantEqual(t, "has admin", ok(r.HasAdmin(ctx)).get(t), true)
		wantEqual(t, "pat", ok(r.Credentials(ctx, f.creds.ID)).get(t).PAT, f.creds.PAT)
		wantEqual(t, "secret", ok(r.Entity(ctx, f.entity.ID)).get(t).WebhookSecret, f.entity.WebhookSecret)
		wantEqual(t, "tags", len(ok(r.Pool(ctx, f.pool.ID)).get(t).Tags), 2)
		i := ok(r.Instance(ctx, "runner-1")).get(t)
		wantEqual(t, "jit", i.JITConfig["f"], "v")
		wantEqual(t, "messages", len(i.StatusMessages), 1)
		ok(r.Job(ctx, 1)).get(t)
		must(t, r.Close())
	}},
	{"Lifecycle/WrongPassphraseRefused", func(t *testing.T, b Backend, s store.Store) {
		if b.Reopen == nil {
			t.Skip("backend cannot reopen")
		}
		setup(t, s)
		must(t, s.Close())
		r, err := b.Reopen(t, s, NewSealer("not the passphrase"))
		if !errors.Is(err, store.ErrWrongPassphrase) {
			if r != nil {
				_ = r.Close()
			}
			t.Fatalf("got %v, want store.ErrWrongPassphrase", err)
		}
		r, err = b.Reopen(t, s, NewSealer(Passphrase))
		must(t, err)
		must(t, r.Close())
	}},
	{"Lifecycle/SecretsSealedAtRest", func(t *testing.T, b Backend, s store.Store) {
		if b.RawContains == nil {
			t.Skip("backend cannot search its raw data")
		}
		ctx := t.Context()
		secrets := map[string]string{
			"pat":            "PAT-c0ffee-plaintext",
			"private key":    "KEY-c0ffee-plaintext",
			"webhook secret": "HOOK-c0ffee-plaintext",
			"jit config":     "JIT-c0ffee-plaintext",
		}
		e := ok(s.CreateEndpoint(ctx, newEndpoint("ghes.example.com", garrison.GitHub))).get(t)
		c := newCreds("creds", e.Name)
		c.PAT = secrets["pat"]
		creds := ok(s.CreateCredentials(ctx, c)).get(t)
		app := garrison.Credentials{Name: "app", ForgeType: garrison.GitHub, AuthType: garrison.AuthApp,
			Endpoint: e.Name, AppID: 1, InstallationID: 2, PrivateKey: []byte(secrets["private key"])}
		ok(s.CreateCredentials(ctx, app)).get(t)
		repo := newRepo("acme", "app", creds.ID)
		repo.WebhookSecret = secrets["webhook secret"]
		ent := ok(s.CreateEntity(ctx, repo)).get(t)
		pool := ok(s.CreatePool(ctx, newPool(ent.ID, "linux"))).get(t)
		in := newInstance("runner-1", pool.ID)
		in.JITConfig = map[string]string{".runner": secrets["jit config"]}
		ok(s.CreateInstance(ctx, in)).get(t)
		if !b.RawContains(t, s, []byte("ghes.example.com")) {
			t.Fatal("RawContains does not find plain data; the check would prove nothing")
		}
		for what, secret := range secrets {
			if b.RawContains(t, s, []byte(secret)) {
				t.Errorf("the %s is stored in plaintext", what)
			}
		}
		wantEqual(t, "jit readable", ok(s.Instance(ctx, "runner-1")).get(t).JITConfig[".runner"], secrets["jit config"])
	}},
}

package storetest

import (
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var controllerCases = []testCase{
	{"Controller/CreatedOnceWithStableUUID", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		var wg sync.WaitGroup
		ids := make([]string, 4)
		for i := range ids {
			wg.Go(func() {
				c, err := s.Controller(ctx)
				if err != nil {
					t.Error(err)
				}
				ids[i] = c.ID
			})
		}
		wg.Wait()
		if _, err := uuid.Parse(ids[0]); err != nil {
			t.Fatalf("controller id %q is not a UUID: %v", ids[0], err)
		}
		for _, id := range ids {
			wantEqual(t, "controller id", id, ids[0])
		}
		c := ok(s.Controller(ctx)).get(t)
		wantEqual(t, "controller id", c.ID, ids[0])
		wantEqual(t, "agent releases url", c.AgentReleasesURL, garrison.DefaultAgentReleasesURL)
		wantEqual(t, "minimum job age backoff", c.MinimumJobAgeBackoff, uint(garrison.DefaultMinimumJobAgeSecs))
		if len(c.SealSalt) != 32 {
			t.Fatalf("seal salt has %d bytes, want 32", len(c.SealSalt))
		}
		checkStamps(t, c.CreatedAt, c.UpdatedAt)
	}},
	{"Controller/Update", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		orig := ok(s.Controller(ctx)).get(t)
		got := ok(s.UpdateController(ctx, func(c *garrison.Controller) error {
			c.ID = "changed"
			c.MetadataURL = "https://garrison.example/api/v1/metadata"
			c.CallbackURL = "https://garrison.example/api/v1/callbacks"
			c.CACertBundle = []byte("pem")
			c.EnableAgentToolsSync = true
			c.MinimumJobAgeBackoff = 7
			return nil
		})).get(t)
		wantEqual(t, "id", got.ID, orig.ID)
		again := ok(s.Controller(ctx)).get(t)
		wantEqual(t, "metadata url", again.MetadataURL, "https://garrison.example/api/v1/metadata")
		wantEqual(t, "ca bundle", string(again.CACertBundle), "pem")
		wantEqual(t, "tools sync", again.EnableAgentToolsSync, true)
		wantEqual(t, "backoff", again.MinimumJobAgeBackoff, uint(7))
		wantEqual(t, "id", again.ID, orig.ID)
		wantEqual(t, "created at", again.CreatedAt, orig.CreatedAt)
	}},
	{"Controller/UpdateCallbackErrorChangesNothing", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		orig := ok(s.Controller(ctx)).get(t)
		_, err := s.UpdateController(ctx, func(c *garrison.Controller) error {
			c.WebhookURL = "https://changed.example"
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		wantEqual(t, "webhook url", ok(s.Controller(ctx)).get(t).WebhookURL, orig.WebhookURL)
	}},
}

var userCases = []testCase{
	{"Users/CreateAdminOnce", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		wantEqual(t, "has admin", ok(s.HasAdmin(ctx)).get(t), false)
		u := ok(s.CreateAdmin(ctx, garrison.User{
			Username: "Admin", Email: "admin@example.com", FullName: "A D", PasswordHash: "hash",
			Enabled: true, IsAdmin: true,
		})).get(t)
		if _, err := uuid.Parse(u.ID); err != nil {
			t.Fatalf("user id %q is not a UUID", u.ID)
		}
		checkStamps(t, u.CreatedAt, u.UpdatedAt)
		wantEqual(t, "has admin", ok(s.HasAdmin(ctx)).get(t), true)
		_, err := s.CreateAdmin(ctx, garrison.User{Username: "other", Enabled: true, IsAdmin: true})
		wantErr(t, err, garrison.ErrConflict)
		got := ok(s.User(ctx, u.ID)).get(t)
		wantEqual(t, "username", got.Username, "Admin")
		wantEqual(t, "password hash", got.PasswordHash, "hash")
		wantEqual(t, "admin", got.IsAdmin, true)
		wantEqual(t, "created at", got.CreatedAt, u.CreatedAt)
		wantEqual(t, "by name", ok(s.UserByName(ctx, "aDMIN")).get(t).ID, u.ID)
	}},
	{"Users/Admin", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		_, err := s.Admin(ctx)
		wantErr(t, err, garrison.ErrNotFound)
		u := ok(s.CreateAdmin(ctx, garrison.User{Username: "root", Enabled: true, IsAdmin: true})).get(t)
		wantEqual(t, "admin", ok(s.Admin(ctx)).get(t).ID, u.ID)
		ok(s.UpdateUser(ctx, u.ID, func(u *garrison.User) error { u.Generation++; return nil })).get(t)
		wantEqual(t, "generation after a reset", ok(s.Admin(ctx)).get(t).Generation, uint(1))
	}},
	{"Users/ConcurrentCreateAdmin", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created int
		)
		for i := range 4 {
			wg.Go(func() {
				_, err := s.CreateAdmin(ctx, garrison.User{Username: "admin" + string(rune('a'+i)), IsAdmin: true})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					created++
				} else if !isConflict(err) {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		wantEqual(t, "admins created", created, 1)
	}},
	{"Users/NotFound", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		_, err := s.User(ctx, "5f0c1f36-8f5c-4d2b-9a57-2b7a1c3c2f00")
		wantErr(t, err, garrison.ErrNotFound)
		_, err = s.UserByName(ctx, "nobody")
		wantErr(t, err, garrison.ErrNotFound)
		_, err = s.UpdateUser(ctx, "missing", func(*garrison.User) error { return nil })
		wantErr(t, err, garrison.ErrNotFound)
	}},
	{"Users/Update", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		u := ok(s.CreateAdmin(ctx, garrison.User{Username: "admin", PasswordHash: "old", Enabled: true})).get(t)
		_, err := s.UpdateUser(ctx, u.ID, func(u *garrison.User) error {
			u.PasswordHash = "discarded"
			return errCallback
		})
		if err != errCallback {
			t.Fatalf("got %v, want the callback's error unchanged", err)
		}
		wantEqual(t, "password", ok(s.User(ctx, u.ID)).get(t).PasswordHash, "old")
		got := ok(s.UpdateUser(ctx, u.ID, func(u *garrison.User) error {
			u.PasswordHash = "new"
			u.Generation++
			u.ID = "ignored"
			return nil
		})).get(t)
		wantEqual(t, "id", got.ID, u.ID)
		again := ok(s.User(ctx, u.ID)).get(t)
		wantEqual(t, "password", again.PasswordHash, "new")
		wantEqual(t, "generation", again.Generation, uint(1))
		if !again.UpdatedAt.After(u.UpdatedAt) && !again.UpdatedAt.Equal(u.UpdatedAt) {
			t.Fatalf("updated_at went backwards")
		}
	}},
}

func isConflict(err error) bool { return garrison.CodeOf(err) == garrison.EConflict }

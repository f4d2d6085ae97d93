package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/events"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// recorder subscribes to everything and renders each change as "type op key".
type recorder struct {
	hub *events.Hub
	sub *events.Sub
}

func newRecorder(t *testing.T) (*recorder, store.Store) {
	t.Helper()
	raw, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer("pw"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	r := &recorder{hub: events.NewHub()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.hub.Run(ctx, func(_ context.Context, c garrison.Change) (any, error) { return key(c.Object), nil },
			func(garrison.Change) any { return nil }, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	r.sub = r.hub.Subscribe()
	r.sub.Set(events.Subscription{Everything: true})
	return r, events.Wrap(raw, r.hub)
}

// key names an object by what clients match it on.
func key(o any) string {
	switch v := o.(type) {
	case garrison.Entity:
		return v.Owner + "/" + v.Name
	case garrison.Pool:
		return v.Image
	case garrison.Instance:
		return v.Name + ":" + string(v.Status)
	case garrison.Job:
		return fmt.Sprintf("%d:%s", v.ID, v.Status)
	case garrison.Credentials:
		return v.Name
	case garrison.Endpoint:
		return v.Name
	case garrison.Controller:
		return "controller"
	case garrison.User:
		return v.Username
	}
	return fmt.Sprintf("%T", o)
}

// next returns the next n events as "type op key".
func (r *recorder) next(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		var ev struct {
			Type    string `json:"entity-type"`
			Op      string `json:"operation"`
			Payload string `json:"payload"`
		}
		b := <-r.sub.C
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.Type+" "+ev.Op+" "+ev.Payload)
	}
	return out
}

func must2[T, U any](v T, _ U, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestStorePublishes: every successful write of a published kind publishes one change,
// in order, with the object after the write (or before a delete); failed writes publish
// nothing.
func TestStorePublishes(t *testing.T) {
	r, s := newRecorder(t)
	ctx := t.Context()
	ep := must(s.CreateEndpoint(ctx, garrison.Endpoint{Name: "gitea.lab", Type: garrison.Gitea,
		BaseURL: "https://gitea.lab", APIBaseURL: "https://gitea.lab/api/v1"}))
	creds := must(s.CreateCredentials(ctx, garrison.Credentials{Name: "gh", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "github.com", PAT: "secret"}))
	repo := must(s.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app",
		CredentialsID: creds.ID, WebhookSecret: "hook", Balancer: garrison.RoundRobin}))
	pool := must(s.CreatePool(ctx, garrison.Pool{EntityID: repo.ID, ProviderName: "lxd", MaxRunners: 2,
		Image: "img1", Flavor: "f", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		Tags: garrison.TagsFromNames([]string{"x64"})}))
	must(s.UpdatePool(ctx, pool.ID, func(p *garrison.Pool) error { p.Image = "img2"; return nil }))
	must(s.CreateInstance(ctx, garrison.Instance{Name: "r1", PoolID: pool.ID, ProviderName: "lxd",
		OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstancePendingCreate}))
	if err := s.AddInstanceEvent(ctx, "r1", garrison.Event{Message: "booting"}); err != nil {
		t.Fatal(err)
	}
	must(s.UpdateInstance(ctx, "r1", func(i *garrison.Instance) error { i.Status = garrison.InstanceRunning; return nil }))
	job := func(status string) {
		must(s.UpsertJob(ctx, 7, func(j *garrison.Job, _ bool) error { j.Status = status; return nil }))
	}
	job("queued")
	job("in_progress")
	record := func(status string, write bool) {
		must2(s.RecordJob(ctx, store.JobRecord{ID: 7, Runner: "r1",
			Job: func(j *garrison.Job, _ bool) error { j.Status = status; return nil },
			Instance: func(i *garrison.Instance, _ garrison.Job) bool {
				i.Status = garrison.InstancePendingDelete
				return write
			}}))
	}
	record("in_progress", false) // the instance is left alone: no instance event
	record("completed", true)
	want := []string{"github_endpoint create gitea.lab", "github_credentials create gh", "repository create acme/app",
		"pool create img1", "pool update img2", "instance create r1:pending_create", "instance update r1:pending_create",
		"instance update r1:running", "job create 7:queued", "job update 7:in_progress", "job update 7:in_progress",
		"job update 7:completed", "instance update r1:pending_delete"}
	if got := r.next(t, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("creates and updates\n got %q\nwant %q", got, want)
	}

	// Failed writes publish nothing: the next event is the delete after them.
	if _, err := s.CreatePool(ctx, garrison.Pool{EntityID: "00000000-0000-0000-0000-000000000001"}); err == nil {
		t.Fatal("pool of a missing entity created")
	}
	if err := s.DeleteEntity(ctx, repo.ID); !errors.Is(err, garrison.ErrInvalid) {
		t.Fatalf("deleting a repository with pools: %v", err)
	}
	if _, err := s.UpdatePool(ctx, pool.ID, func(*garrison.Pool) error { return garrison.ErrInvalid }); err == nil {
		t.Fatal("update refused by fn succeeded")
	}
	for _, err := range []error{s.DeleteJob(ctx, 7), s.DeleteInstance(ctx, "r1"), s.DeleteInstance(ctx, "r1"),
		s.DeletePool(ctx, pool.ID), s.DeleteEntity(ctx, repo.ID), s.DeleteCredentials(ctx, creds.ID),
		s.DeleteEndpoint(ctx, ep.Name)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.UpdateController(ctx, func(c *garrison.Controller) error { c.MetadataURL = "http://x/api/v1/metadata"; return nil }))
	want = []string{"job delete 7:completed", "instance delete r1:pending_delete", "pool delete img2",
		"repository delete acme/app", "github_credentials delete gh", "github_endpoint delete gitea.lab",
		"controller update controller"}
	if got := r.next(t, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("deletes\n got %q\nwant %q", got, want)
	}
	if n := len(r.sub.C); n != 0 {
		t.Errorf("%d more events than writes", n)
	}
}

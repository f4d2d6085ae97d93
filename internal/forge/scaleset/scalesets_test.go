package scaleset

import (
	"errors"
	"slices"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

func TestRunnerGroups(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	gid, err := e.sim.AddRunnerGroup("acme", "gpu", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	g, err := e.c.RunnerGroup(ctx, "")
	if err != nil || g.ID != 1 || g.Name != "Default" || !g.IsDefault {
		t.Fatalf("default group = %+v, %v", g, err)
	}
	g, err = e.c.RunnerGroup(ctx, "GPU")
	if err != nil || g.ID != gid || g.IsDefault {
		t.Fatalf("gpu group = %+v, %v", g, err)
	}
	if _, err := e.c.RunnerGroup(ctx, "nope"); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("missing group: err = %v", err)
	}
}

func TestScaleSetCRUD(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	gid, _ := e.sim.AddRunnerGroup("acme", "gpu", false)

	s := e.newSet(t)
	if s.ID == 0 || s.Name != "linux" || s.RunnerGroupID != 1 || s.RunnerGroupName != "Default" || !slices.Equal(s.Labels, []string{"linux"}) {
		t.Fatalf("created %+v", s)
	}
	if _, err := e.c.CreateScaleSet(ctx, ScaleSet{Name: "linux", RunnerGroupID: 1}); !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("duplicate: err = %v", err)
	}
	if _, err := e.c.CreateScaleSet(ctx, ScaleSet{Name: "x", RunnerGroupID: 999}); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("unknown group: err = %v", err)
	}
	if _, err := e.c.CreateScaleSet(ctx, ScaleSet{}); !errors.Is(err, garrison.ErrInvalid) {
		t.Fatalf("no name: err = %v", err)
	}
	other, err := e.c.CreateScaleSet(ctx, ScaleSet{Name: "big", RunnerGroupID: gid, Labels: []string{"big", "gpu"}, DisableUpdate: true})
	if err != nil || !other.DisableUpdate || other.RunnerGroupName != "gpu" || !slices.Equal(other.Labels, []string{"big", "gpu"}) {
		t.Fatalf("second set %+v, %v", other, err)
	}

	found, err := e.c.ScaleSetByName(ctx, 1, "linux")
	if err != nil || found.ID != s.ID {
		t.Fatalf("by name: %+v, %v", found, err)
	}
	if _, err := e.c.ScaleSetByName(ctx, gid, "linux"); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("by name in another group: err = %v", err)
	}
	all, err := e.c.ScaleSets(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("list: %+v, %v", all, err)
	}

	up, err := e.c.UpdateScaleSet(ctx, s.ID, ScaleSet{Name: "linux", RunnerGroupID: 1, Labels: []string{"linux", "x64"}})
	if err != nil || !slices.Equal(up.Labels, []string{"linux", "x64"}) {
		t.Fatalf("update: %+v, %v", up, err)
	}
	got, err := e.c.ScaleSet(ctx, s.ID)
	if err != nil || !slices.Equal(got.Labels, []string{"linux", "x64"}) {
		t.Fatalf("get after update: %+v, %v", got, err)
	}
	if _, err := e.c.UpdateScaleSet(ctx, s.ID, ScaleSet{Name: "big", RunnerGroupID: gid}); !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("rename onto another set: err = %v", err)
	}

	if err := e.c.DeleteScaleSet(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ScaleSet(ctx, s.ID); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("get deleted: err = %v", err)
	}
	if err := e.c.DeleteScaleSet(ctx, s.ID); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("delete twice: err = %v", err)
	}
	var ae *APIError
	if err := e.c.DeleteScaleSet(ctx, s.ID); !errors.As(err, &ae) || ae.TypeName != "RunnerScaleSetNotFoundException" || ae.ActivityID == "" {
		t.Fatalf("APIError = %+v", ae)
	}
}

func TestStatistics(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	s := e.newSet(t)
	for range 3 {
		if _, err := e.sim.QueueJob("acme/app", "linux"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.sim.QueueJob("acme/app", "windows"); err != nil { // not the set's
		t.Fatal(err)
	}
	st, err := e.c.Statistics(ctxT(t), s.ID)
	if err != nil || st.AssignedJobs != 3 || st.RunningJobs != 0 || st.RegisteredRunners != 0 {
		t.Fatalf("statistics %+v, %v", st, err)
	}
	if got := garrison.ScaleSetTarget(1, 10, st.AssignedJobs); got != 4 {
		t.Fatalf("target %d", got)
	}
}

func TestRepositoryAndEnterpriseScopes(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	e.sim.AddEnterprise("corp")
	e.sim.AddOrg("inner", "corp")
	if err := e.sim.AddRepo("inner/svc"); err != nil {
		t.Fatal(err)
	}
	pat := garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}
	for _, ent := range []garrison.Entity{
		{Type: garrison.Repository, Owner: "acme", Name: "app"},
		{Type: garrison.Enterprise, Name: "corp"},
	} {
		c := e.client(t, pat, ent, Options{})
		s, err := c.CreateScaleSet(ctxT(t), ScaleSet{Name: "set-" + string(ent.Type), RunnerGroupID: 1})
		if err != nil {
			t.Fatalf("%s: %v", ent.Type, err)
		}
		// Each tenant sees its own scale sets only.
		all, err := c.ScaleSets(ctxT(t))
		if err != nil || len(all) != 1 || all[0].ID != s.ID {
			t.Fatalf("%s: list %+v, %v", ent.Type, all, err)
		}
	}
	// An enterprise scale set serves the repositories of its organizations.
	id, _ := e.sim.QueueJob("inner/svc", "set-enterprise")
	if j, _ := e.sim.Job(id); j.ScaleSetID == 0 {
		t.Fatalf("enterprise job not routed: %+v", j)
	}
	// An unknown entity fails the bootstrap.
	c := e.client(t, pat, garrison.Entity{Type: garrison.Organization, Name: "ghost"}, Options{})
	if _, err := c.ScaleSets(ctxT(t)); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("unknown org: err = %v", err)
	}
}

func TestAppCredentials(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	c := e.client(t, e.appCredentials(t), org(), Options{})
	if _, err := c.CreateScaleSet(ctxT(t), ScaleSet{Name: "app-set", RunnerGroupID: 1}); err != nil {
		t.Fatal(err)
	}
	calls := e.sim.Calls()
	if calls[forgesim.CallKey{Route: "POST /app/installations/{id}/access_tokens", Credential: "app:42"}] != 1 {
		t.Fatalf("installation token calls: %v", calls)
	}
}

func TestBadCredentials(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	c := e.client(t, garrison.Credentials{Name: "bad", AuthType: garrison.AuthPAT, PAT: "wrong"}, org(), Options{})
	if _, err := c.ScaleSets(ctxT(t)); !errors.Is(err, garrison.ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
}

package storetest

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

func newTemplate(name string, forge garrison.ForgeType, os string) garrison.Template {
	return garrison.Template{Name: name, Description: "about " + name, OSType: os, ForgeType: forge,
		Data: []byte("#!/bin/bash\necho {{ .RunnerName }}\n"), Owner: "admin"}
}

// systemTemplates are four system templates in GARM's seed order.
func systemTemplates() []garrison.Template {
	var out []garrison.Template
	for _, p := range []struct {
		f  garrison.ForgeType
		os string
	}{{garrison.GitHub, garrison.OSWindows}, {garrison.GitHub, garrison.OSLinux}, {garrison.Gitea, garrison.OSLinux}, {garrison.Gitea, garrison.OSWindows}} {
		t := newTemplate(string(p.f)+"_"+p.os, p.f, p.os)
		t.Owner = garrison.SystemOwner
		out = append(out, t)
	}
	return out
}

func templateNames(ts []garrison.Template) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func wantNames(t *testing.T, what string, ts []garrison.Template, want ...string) {
	t.Helper()
	got := templateNames(ts)
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

var templateCases = []testCase{
	{"Templates/CreateGetUpdate", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		c := ok(s.CreateTemplate(ctx, newTemplate("mine", garrison.GitHub, garrison.OSLinux))).get(t)
		if c.ID == 0 {
			t.Fatal("no id")
		}
		checkStamps(t, c.CreatedAt, c.UpdatedAt)
		got := ok(s.Template(ctx, c.ID)).get(t)
		wantEqual(t, "name", got.Name, "mine")
		wantEqual(t, "data", string(got.Data), string(c.Data))
		wantEqual(t, "owner", got.Owner, "admin")
		wantEqual(t, "forge", got.ForgeType, garrison.GitHub)
		wantEqual(t, "created", got.CreatedAt, c.CreatedAt)
		up := ok(s.UpdateTemplate(ctx, c.ID, func(tp *garrison.Template) error {
			tp.Name, tp.Data, tp.Owner, tp.ID = "renamed", []byte("echo new"), "someone", 77
			return nil
		})).get(t)
		wantEqual(t, "id kept", up.ID, c.ID)
		wantEqual(t, "owner kept", up.Owner, "admin")
		got = ok(s.Template(ctx, c.ID)).get(t)
		wantEqual(t, "updated name", got.Name, "renamed")
		wantEqual(t, "updated data", string(got.Data), "echo new")
		wantEqual(t, "owner after update", got.Owner, "admin")
	}},
	{"Templates/Errors", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		a := ok(s.CreateTemplate(ctx, newTemplate("Taken", garrison.GitHub, garrison.OSLinux))).get(t)
		b := ok(s.CreateTemplate(ctx, newTemplate("other", garrison.Gitea, garrison.OSWindows))).get(t)
		noData := newTemplate("x", garrison.GitHub, garrison.OSLinux)
		noData.Data = nil
		badOS := newTemplate("y", garrison.GitHub, "macos")
		noOwner := newTemplate("z", garrison.GitHub, garrison.OSLinux)
		noOwner.Owner = ""
		for _, tc := range []struct {
			name string
			err  error
			want error
		}{
			{"duplicate other case", second(s.CreateTemplate(ctx, newTemplate("TAKEN", garrison.Gitea, garrison.OSLinux))), garrison.ErrConflict},
			{"no data", second(s.CreateTemplate(ctx, noData)), garrison.ErrInvalid},
			{"bad os", second(s.CreateTemplate(ctx, badOS)), garrison.ErrInvalid},
			{"no owner", second(s.CreateTemplate(ctx, noOwner)), garrison.ErrInvalid},
			{"get missing", second(s.Template(ctx, 999999)), garrison.ErrNotFound},
			{"rename onto taken", second(s.UpdateTemplate(ctx, b.ID, func(tp *garrison.Template) error { tp.Name = "taken"; return nil })), garrison.ErrConflict},
			{"update to empty name", second(s.UpdateTemplate(ctx, a.ID, func(tp *garrison.Template) error { tp.Name = " "; return nil })), garrison.ErrInvalid},
			{"update missing", second(s.UpdateTemplate(ctx, 999999, func(*garrison.Template) error { return nil })), garrison.ErrNotFound},
			{"delete missing", s.DeleteTemplate(ctx, 999999), nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.want == nil {
					must(t, tc.err)
					return
				}
				wantErr(t, tc.err, tc.want)
			})
		}
		wantEqual(t, "name after failed rename", ok(s.Template(ctx, b.ID)).get(t).Name, "other")
	}},
	{"Templates/ListFilters", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		seeded := ok(s.SeedTemplates(ctx, systemTemplates())).get(t)
		wantEqual(t, "seeded", seeded, true)
		ok(s.CreateTemplate(ctx, newTemplate("My_Linux%", garrison.GitHub, garrison.OSLinux))).get(t)
		all := ok(s.ListTemplates(ctx, store.TemplateFilter{})).get(t)
		wantNames(t, "all", all, "github_windows", "github_linux", "gitea_linux", "gitea_windows", "My_Linux%")
		wantNames(t, "partial", ok(s.ListTemplates(ctx, store.TemplateFilter{PartialName: "LINUX"})).get(t),
			"github_linux", "gitea_linux", "My_Linux%")
		wantNames(t, "partial is not a pattern", ok(s.ListTemplates(ctx, store.TemplateFilter{PartialName: "_linux%"})).get(t), "My_Linux%")
		wantNames(t, "os and forge", ok(s.ListTemplates(ctx, store.TemplateFilter{OSType: "windows", ForgeType: garrison.Gitea})).get(t), "gitea_windows")
		wantNames(t, "system", ok(s.ListTemplates(ctx, store.TemplateFilter{Owner: garrison.SystemOwner, ForgeType: garrison.GitHub})).get(t),
			"github_windows", "github_linux")
		wantNames(t, "unknown", ok(s.ListTemplates(ctx, store.TemplateFilter{OSType: "macos"})).get(t))
	}},
	{"Templates/SeedOnce", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		wantEqual(t, "first seed", ok(s.SeedTemplates(ctx, systemTemplates())).get(t), true)
		ts := ok(s.ListTemplates(ctx, store.TemplateFilter{})).get(t)
		must(t, s.DeleteTemplate(ctx, ts[0].ID))
		wantEqual(t, "second seed", ok(s.SeedTemplates(ctx, systemTemplates())).get(t), false)
		wantEqual(t, "count after second seed", len(ok(s.ListTemplates(ctx, store.TemplateFilter{})).get(t)), 3)
	}},
	{"Templates/UsedByPools", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		tp := ok(s.CreateTemplate(ctx, newTemplate("used", garrison.GitHub, garrison.OSLinux))).get(t)
		p := newPool(f.entity.ID, "other")
		p.TemplateID = tp.ID
		p = ok(s.CreatePool(ctx, p)).get(t)
		wantEqual(t, "stored id", ok(s.Pool(ctx, p.ID)).get(t).TemplateID, tp.ID)
		wantErr(t, s.DeleteTemplate(ctx, tp.ID), garrison.ErrInvalid)
		missing := newPool(f.entity.ID, "third")
		missing.TemplateID = 999999
		wantErr(t, second(s.CreatePool(ctx, missing)), garrison.ErrNotFound)
		wantErr(t, second(s.UpdatePool(ctx, p.ID, func(pp *garrison.Pool) error { pp.TemplateID = 999999; return nil })), garrison.ErrNotFound)
		ok(s.UpdatePool(ctx, p.ID, func(pp *garrison.Pool) error { pp.TemplateID = 0; return nil })).get(t)
		must(t, s.DeleteTemplate(ctx, tp.ID))
		wantErr(t, second(s.Template(ctx, tp.ID)), garrison.ErrNotFound)
	}},
	{"Templates/Import", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		ok(s.SeedTemplates(ctx, systemTemplates())).get(t)
		seededLinux := ok(s.ListTemplates(ctx, store.TemplateFilter{Owner: garrison.SystemOwner, OSType: "linux", ForgeType: garrison.GitHub})).get(t)[0]
		snap := importSnapshot()
		sys := newTemplate("imported_system", garrison.GitHub, garrison.OSLinux)
		sys.ID, sys.Owner, sys.Data = 40, garrison.SystemOwner, []byte("system data")
		user := newTemplate("acme-linux", garrison.GitHub, garrison.OSLinux)
		user.ID = 41
		snap.Templates = []garrison.Template{sys, user}
		snap.Pools[0].TemplateID = 41
		must(t, s.Import(ctx, snap))
		wantErr(t, second(s.Template(ctx, seededLinux.ID)), garrison.ErrNotFound)
		got := ok(s.Template(ctx, 40)).get(t)
		wantEqual(t, "system replaced", string(got.Data), "system data")
		wantEqual(t, "system owner", got.Owner, garrison.SystemOwner)
		wantEqual(t, "user kept", ok(s.Template(ctx, 41)).get(t).Name, "acme-linux")
		wantEqual(t, "pool template", ok(s.Pool(ctx, impPool)).get(t).TemplateID, uint(41))
		wantEqual(t, "system count", len(ok(s.ListTemplates(ctx, store.TemplateFilter{Owner: garrison.SystemOwner})).get(t)), 4)
		next := ok(s.CreateTemplate(ctx, newTemplate("after", garrison.Gitea, garrison.OSLinux))).get(t)
		if next.ID <= 41 {
			t.Fatalf("new template id %d not past the imported ones", next.ID)
		}
	}},
	{"Templates/ImportErrors", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		snap := importSnapshot()
		snap.Pools[0].TemplateID = 12345
		wantErr(t, s.Import(ctx, snap), garrison.ErrNotFound)
		snap = importSnapshot()
		bad := newTemplate("bad", garrison.GitHub, "solaris")
		bad.ID = 9
		snap.Templates = []garrison.Template{bad}
		wantErr(t, s.Import(ctx, snap), garrison.ErrInvalid)
		wantEqual(t, "nothing imported", len(ok(s.ListPools(ctx, store.PoolFilter{})).get(t)), 0)
	}},
}

package garmimport

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/internal/store"
)

type expectedTemplate struct {
	ID                       uint
	Name, Description, Owner string
	OSType                   string `json:"os_type"`
	ForgeType                string `json:"forge_type"`
	DataSHA256               string `json:"data_sha256"`
	Data                     string
}

// checkTemplates checks the imported templates against the fixture: ids, names and
// owners kept; user templates' text kept; system templates carry garrison's built-in
// script of their forge and OS.
func checkTemplates(t *testing.T, st store.Store, want expected) {
	got, err := st.ListTemplates(t.Context(), store.TemplateFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.Templates) {
		t.Fatalf("%d templates, want %d", len(got), len(want.Templates))
	}
	for i, w := range want.Templates {
		g := got[i]
		if g.ID != w.ID || g.Name != w.Name || g.Description != w.Description || g.Owner != w.Owner ||
			g.OSType != w.OSType || string(g.ForgeType) != w.ForgeType {
			t.Errorf("template %d: got %+v, want %+v", w.ID, g, w)
			continue
		}
		if g.Owner != garrison.SystemOwner {
			sum := sha256.Sum256(g.Data)
			if hex.EncodeToString(sum[:]) != w.DataSHA256 || string(g.Data) != w.Data {
				t.Errorf("template %s: data %q", g.Name, g.Data)
			}
			continue
		}
		sys, err := bootstrap.SystemTemplateFor(w.ForgeType, w.OSType)
		if err != nil || string(g.Data) != string(sys.Data) {
			t.Errorf("system template %s does not carry garrison's built-in script (%v)", g.Name, err)
		}
	}
}

// expectedTemplateID is the template id a pool of the fixture keeps, or 0.
func expectedTemplateID(w expectedPool) uint {
	if w.Template == nil {
		return 0
	}
	return w.Template.ID
}

// TestImportTemplateEdgeCases: a user template named like a system template is renamed;
// a system template garrison has no script for is not imported, and the pool that used
// it falls back to garrison's built-in script, reported.
func TestImportTemplateEdgeCases(t *testing.T) {
	dir, cfg := copyFixture(t)
	mutate(t, dir, `UPDATE templates SET name = 'GitHub_Linux' WHERE id = 6`,
		`UPDATE templates SET os_type = 'macos' WHERE id = 1`)
	st, _ := newTarget(t)
	rep, err := Run(t.Context(), fixtureOptions(cfg, st))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	renamed, err := st.Template(t.Context(), 6)
	if err != nil || renamed.Name != "GitHub_Linux-6" || renamed.Owner != "admin" {
		t.Fatalf("template 6: %+v %v", renamed, err)
	}
	if _, err := st.Template(t.Context(), 1); err == nil {
		t.Fatal("the macos system template was imported")
	}
	pools, _ := st.ListPools(t.Context(), store.PoolFilter{})
	windows := 0
	for _, p := range pools {
		if p.OSType == garrison.OSWindows {
			windows++
			if p.TemplateID != 0 {
				t.Errorf("windows pool %s keeps template %d", p.ID, p.TemplateID)
			}
		}
	}
	if windows == 0 {
		t.Fatal("the fixture has no windows pool")
	}
	var lines []string
	for _, n := range rep.NotImported {
		lines = append(lines, n.Text)
	}
	wantLine(t, rep.Warnings, "template GitHub_Linux (id 6) imported as GitHub_Linux-6")
	wantLine(t, lines, `system template github_windows not imported: could not find template for forge github and OS type: "macos"`)
	wantLine(t, lines, "used template 1, which is not imported; garrison will use its default github/windows template")
}

func wantLine(t *testing.T, lines []string, part string) {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, part) {
			return
		}
	}
	t.Errorf("no line contains %q: %q", part, lines)
}

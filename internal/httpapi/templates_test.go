package httpapi_test

import (
	"encoding/base64"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func validTemplate(name string) map[string]any {
	return map[string]any{"name": name, "description": "d", "data": b64("#!/bin/bash\necho {{ .RunnerName }}\n"),
		"os_type": "linux", "forge_type": "github"}
}

// TestTemplateRoutes checks every templates route's status codes and messages
// (rest-api-2.md §3.1, §3.3).
func TestTemplateRoutes(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	var mine apiv1.Template
	h.expect(h.call("POST", api("/templates"), tok, validTemplate("mine")), 200, &mine)
	if mine.Owner != "admin" || string(mine.Data) != "#!/bin/bash\necho {{ .RunnerName }}\n" || mine.ForgeType != "github" {
		t.Fatalf("created %+v", mine)
	}
	id := func(n uint) string { return api("/templates/" + itoa(n)) }
	bad := "Bad Request"
	tests := []struct {
		name, method, path string
		body               any
		status             int
		details            string // "" skips the body check
	}{
		{"create: no name", "POST", "/templates", with(validTemplate(""), "name", ""), 400, `invalid create params "name cannot be empty"`},
		{"create: no data", "POST", "/templates", with(validTemplate("x"), "data", nil), 400, `invalid create params "template data is empty"`},
		{"create: bad os", "POST", "/templates", with(validTemplate("x"), "os_type", "macos"), 400, `invalid create params "invalid OS type: \"macos\""`},
		{"create: no forge", "POST", "/templates", with(validTemplate("x"), "forge_type", ""), 400, `invalid create params "invalid forge type: \"\""`},
		{"create: unclosed action", "POST", "/templates", with(validTemplate("x"), "data", b64("a\necho {{ .RunnerName")), 400,
			"failed to validate template: invalid template: line 2: unclosed action"},
		{"create: unknown field", "POST", "/templates", with(validTemplate("x"), "data", b64("{{ if .UseJITConfig }}\n{{ .Nope }}{{ end }}")), 400,
			"failed to validate template: invalid template: line 2: can't evaluate field Nope: the install context has no such field"},
		{"create: bad base64", "POST", "/templates", with(validTemplate("x"), "data", "!!notbase64"), 400,
			"invalid request: data is not valid base64: illegal base64 data at input byte 0"},
		{"create: unpadded base64", "POST", "/templates", with(validTemplate("x"), "data", "YWJj\nZA"), 400, ""},
		{"create: not JSON", "POST", "/templates", []byte("{"), 400, ""},
		{"create: taken name", "POST", "/templates", validTemplate("MINE"), 409,
			"failed to create template: a template name already exists with the specified name"},
		{"create: system name", "POST", "/templates", validTemplate("github_linux"), 409, ""},
		{"get: bad id", "GET", "/templates/abc", nil, 400, `invalid value for "templateID": "abc"`},
		{"get: restore is not an id", "GET", "/templates/restore", nil, 400, `invalid value for "templateID": "restore"`},
		{"get: unknown", "GET", "/templates/9999", nil, 404, "failed to get template: failed to get template: not found"},
		{"update: empty name", "PUT", "/templates/" + itoa(mine.ID), map[string]any{"name": ""}, 400, `invalid update params: "name cannot be empty"`},
		{"update: bad data", "PUT", "/templates/" + itoa(mine.ID), map[string]any{"data": b64("{{ end }}")}, 400, ""},
		{"update: bad base64", "PUT", "/templates/" + itoa(mine.ID), map[string]any{"data": "%%"}, 400, ""},
		{"update: unknown", "PUT", "/templates/9999", map[string]any{"name": "n"}, 404, ""},
		{"update: bad id", "PUT", "/templates/x1", map[string]any{}, 400, `invalid value for "templateID": "x1"`},
		{"update: taken name", "PUT", "/templates/" + itoa(mine.ID), map[string]any{"name": "gitea_linux"}, 409, ""},
		{"update: nothing", "PUT", "/templates/" + itoa(mine.ID), map[string]any{}, 200, ""},
		{"delete: unknown", "DELETE", "/templates/9999", nil, 200, ""},
		{"delete: bad id", "DELETE", "/templates/-1", nil, 400, `invalid value for "templateID": "-1"`},
		{"restore: unknown forge", "POST", "/templates/restore", map[string]any{"forge": "gitlab", "os_type": "linux"}, 404,
			`failed to get template content for gitlab/linux: could not find template for forge type: "gitlab"`},
		{"restore: unknown os", "POST", "/templates/restore", map[string]any{"forge": "gitea", "os_type": "macos"}, 404,
			`failed to get template content for gitea/macos: could not find template for forge gitea and OS type: "macos"`},
		{"restore: empty", "POST", "/templates/restore", map[string]any{}, 404,
			`failed to get template content for /: could not find template for forge type: ""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h.t = t
			r := h.call(tc.method, api(tc.path), tok, tc.body)
			if tc.details != "" {
				h.expectError(r, tc.status, map[int]string{400: bad, 404: "Not Found", 409: "Conflict"}[tc.status], tc.details)
				return
			}
			h.expect(r, tc.status, nil)
		})
	}
	h.t = t
	var got apiv1.Template
	h.expect(h.call("GET", id(mine.ID), tok, nil), 200, &got)
	if got.Name != "mine" || string(got.Data) != string(mine.Data) {
		t.Fatalf("failed updates changed the template: %+v", got)
	}
}

// TestTemplateLifecycle walks list filters, update, restore and delete-in-use.
func TestTemplateLifecycle(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	var list []map[string]any
	h.expect(h.call("GET", api("/templates"), tok, nil), 200, &list)
	if len(list) != 4 || list[0]["name"] != "github_windows" || list[0]["owner_id"] != "system" || list[0]["data"] != nil {
		t.Fatalf("system templates: %v", list)
	}
	var mine apiv1.Template
	h.expect(h.call("POST", api("/templates"), tok, with(validTemplate("Acme-Linux"), "forge_type", "gitea")), 200, &mine)
	for q, want := range map[string]int{"?partialName=LINUX": 3, "?osType=windows": 2, "?forgeType=gitea": 3,
		"?forgeType=gitea&osType=linux&partialName=acme": 1, "?osType=macos": 0, "?forgeType=gitlab": 0} {
		h.expect(h.call("GET", api("/templates"+q), tok, nil), 200, &list)
		if len(list) != want {
			t.Fatalf("%s: %d templates, want %d", q, len(list), want)
		}
	}

	// The admin may edit a system template; restore puts the content and name back.
	sys := uint(list0ID(t, h, tok, "github_linux"))
	var up apiv1.Template
	h.expect(h.call("PUT", api("/templates/"+itoa(sys)), tok, map[string]any{"name": "renamed", "description": nil,
		"data": b64("echo edited")}), 200, &up)
	if up.Name != "renamed" || string(up.Data) != "echo edited" || up.Owner != "system" || up.Description == "" {
		t.Fatalf("updated %+v", up)
	}
	h.expect(h.call("POST", api("/templates/restore"), tok, map[string]any{"forge": "github", "os_type": "linux"}), 200, nil)
	h.expect(h.call("GET", api("/templates/"+itoa(sys)), tok, nil), 200, &up)
	if up.Name != "github_linux" || len(up.Data) < 1000 {
		t.Fatalf("restored %s (%d bytes)", up.Name, len(up.Data))
	}
	// A deleted system template comes back with a new id on restore_all.
	win := list0ID(t, h, tok, "github_windows")
	h.expect(h.call("DELETE", api("/templates/"+itoa(uint(win))), tok, nil), 200, nil)
	h.expect(h.call("POST", api("/templates/restore"), tok, map[string]any{"restore_all": true}), 200, nil)
	if again := list0ID(t, h, tok, "github_windows"); again == win {
		t.Fatal("restore reused the deleted id")
	}

	// A pool that uses a template keeps it from being deleted.
	var p apiv1.Pool
	h.expect(h.call("GET", api("/pools/"+f.poolID), tok, nil), 200, &p)
	if p.TemplateID == 0 || p.TemplateName != "github_linux" {
		t.Fatalf("pool template %d %q", p.TemplateID, p.TemplateName)
	}
	h.expectError(h.call("DELETE", api("/templates/"+itoa(p.TemplateID)), tok, nil), 400, "Bad Request",
		"failed to delete template: cannot delete template while in use by pools or scale sets")
	h.expect(h.call("DELETE", api("/templates/"+itoa(mine.ID)), tok, nil), 200, nil)
	h.expect(h.call("GET", api("/templates/"+itoa(mine.ID)), tok, nil), 404, nil)
}

func list0ID(t *testing.T, h *harness, tok, name string) int {
	t.Helper()
	var list []apiv1.Template
	h.expect(h.call("GET", api("/templates?partialName="+name), tok, nil), 200, &list)
	if len(list) != 1 {
		t.Fatalf("%s: %d matches", name, len(list))
	}
	return int(list[0].ID)
}

// TestPoolTemplates checks how pools pick and change templates (rest-api-2.md §3.5).
func TestPoolTemplates(t *testing.T) {
	f := newFixture(t)
	h, tok := f.h, f.tok
	var win, giteaT apiv1.Template
	h.expect(h.call("POST", api("/templates"), tok, with(validTemplate("win"), "os_type", "windows")), 200, &win)
	h.expect(h.call("POST", api("/templates"), tok, with(validTemplate("gt"), "forge_type", "gitea")), 200, &giteaT)
	pools := api("/repositories/" + f.repoID + "/pools")
	h.expectError(h.call("POST", pools, tok, with(validPool(), "template_id", 9999, "tags", []string{"t1"})), 404, "Not Found", "template 9999 not found")
	h.expectError(h.call("POST", pools, tok, with(validPool(), "template_id", win.ID, "tags", []string{"t2"})), 400, "Bad Request",
		"selected template OS type (windows) and pool OS type (linux) do not match")
	h.expectError(h.call("POST", pools, tok, with(validPool(), "template_id", giteaT.ID, "tags", []string{"t3"})), 400, "Bad Request",
		"selected template forge type (gitea) and pool forge type (github) do not match")
	var p apiv1.Pool
	h.expect(h.call("POST", pools, tok, with(validPool(), "template_id", win.ID, "os_type", "windows", "tags", []string{"t4"})), 200, &p)
	if p.TemplateID != win.ID || p.TemplateName != "win" {
		t.Fatalf("pool template %d %q", p.TemplateID, p.TemplateName)
	}
	// Update: the OS compared is the requested one, else the stored one.
	h.expectError(h.call("PUT", api("/pools/"+p.ID), tok, map[string]any{"template_id": list0ID(t, h, tok, "github_linux")}), 400, "Bad Request",
		"selected template OS type (linux) and pool OS type (windows) do not match")
	h.expect(h.call("PUT", api("/pools/"+p.ID), tok, map[string]any{"template_id": list0ID(t, h, tok, "github_linux"), "os_type": "linux"}), 200, &p)
	if p.TemplateName != "github_linux" || p.OSType != "linux" {
		t.Fatalf("updated pool %+v", p)
	}
	// With no system template for the pair, a pool without template_id is refused.
	h.expect(h.call("DELETE", api("/templates/"+itoa(uint(list0ID(t, h, tok, "github_windows")))), tok, nil), 200, nil)
	h.expectError(h.call("POST", pools, tok, with(validPool(), "os_type", "windows", "tags", []string{"t5"})), 400, "Bad Request",
		"failed to find suitable template: no template ID supplied and no default template can be found")
}

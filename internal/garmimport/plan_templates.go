package garmimport

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/bootstrap"
)

// planTemplates maps GARM's runner install templates, keeping their ids (spec ID-3) so
// that pools keep pointing at the same templates:
//   - a user template is imported as it is, owned by its GARM user's name;
//   - a system template (user_id NULL) keeps its id, name and description but gets
//     garrison's built-in script of the same forge and OS type: GARM's system scripts
//     follow GARM's bootstrap flow, garrison's follow garrison's.
//
// garrison's template names are unique across owners: a user template named like an
// earlier one is imported as <name>-<id>, with a warning.
func (p *planner) planTemplates() {
	users := map[string]string{}
	for _, u := range p.d.users {
		users[u.str("id")] = u.str("username")
	}
	taken := map[string]bool{}
	system := 0
	for _, r := range p.d.templates {
		p.rep.kind("templates").Found++
		t, ok := p.template(r, users)
		if !ok {
			p.rep.kind("templates").Skipped++
			continue
		}
		if key := strings.ToLower(t.Name); taken[key] {
			renamed := fmt.Sprintf("%s-%d", t.Name, t.ID)
			p.rep.warnf("template %s (id %d) imported as %s: garrison template names are unique across users", t.Name, t.ID, renamed)
			t.Name = renamed
		}
		taken[strings.ToLower(t.Name)] = true
		if t.IsSystem() {
			system++
		}
		p.snap.Templates = append(p.snap.Templates, t)
		p.rep.kind("templates").Imported++
	}
	if system > 0 {
		p.rep.warnf("%d system templates imported with garrison's own install scripts; GARM's system script content is not kept", system)
	}
}

// template maps one template row; ok is false when it is not imported (reported).
func (p *planner) template(r row, users map[string]string) (garrison.Template, bool) {
	t := garrison.Template{ID: uint(r.int("id")), Name: r.str("name"), Description: r.str("description"),
		OSType: r.str("os_type"), ForgeType: garrison.ForgeType(r.str("forge_type")),
		CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
	if r.null("user_id") {
		st, err := bootstrap.SystemTemplateFor(string(t.ForgeType), t.OSType)
		if err != nil {
			p.rep.notImported(false, p.o.SkipUnsupported, "system template %s not imported: %s", t.Name, err)
			return t, false
		}
		t.Owner, t.Data = garrison.SystemOwner, st.Data
		return t, true
	}
	t.Owner = users[r.str("user_id")]
	if t.Owner == "" {
		t.Owner = "admin"
	}
	sealed, ok := p.open("templates", fmt.Sprint(t.ID), "data", r.bytes("data"))
	if !ok {
		return t, false
	}
	data, err := templateText(sealed)
	if err == nil {
		t.Data = data
		err = t.Validate()
	}
	if err != nil {
		p.rep.notImported(false, p.o.SkipUnsupported, "template %s (%s/%s) not imported: %s", t.Name, t.ForgeType, t.OSType, garrison.MessageOf(err))
		return t, false
	}
	if err := bootstrap.ValidateTemplate(t.Data); err != nil {
		p.rep.warnf("template %s (id %d) would not render in garrison (%s): fix it with `garrison template update` before its pools boot runners", t.Name, t.ID, err)
	}
	return t, true
}

// templateText decodes GARM's stored template data: a JSON string holding the base64 of
// the template text (spec: double encoding).
func templateText(opened []byte) ([]byte, error) {
	var b64 string
	if err := json.Unmarshal(opened, &b64); err != nil {
		return nil, errors.New("its data is not a JSON string")
	}
	text, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, errors.New("its data is not base64")
	}
	return text, nil
}

// templateOf is the template id an imported pool or scale set (what, of the entity
// entityID, for osType) keeps: GARM's, when that template is imported; else the imported
// system template of its forge and OS (reported), or 0 (garrison's built-in script) when
// there is none.
func (p *planner) templateOf(r row, what, entityID, osType string) uint {
	id := uint(r.int("template_id"))
	forge := p.entities[entityID].ForgeType
	var fallback uint
	for _, t := range p.snap.Templates {
		if !r.null("template_id") && t.ID == id {
			return id
		}
		if fallback == 0 && t.IsSystem() && t.OSType == osType && t.ForgeType == forge {
			fallback = t.ID
		}
	}
	if !r.null("template_id") && id != 0 {
		p.rep.notImported(true, p.o.SkipUnsupported, "%s used template %d, which is not imported; garrison will use its default %s/%s template",
			what, id, forge, osType)
	}
	return fallback
}

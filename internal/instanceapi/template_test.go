package instanceapi

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/bootstrap"
)

// TestInstallScriptFromStoredTemplate checks that the install script is the pool's stored
// template rendered for the calling runner, that an edit shows in the next script, that
// extra_specs still override it, and that a template that fails to render is a 400.
func TestInstallScriptFromStoredTemplate(t *testing.T) {
	e := newEnv(t, envConfig{forge: garrison.Gitea})
	ctx := t.Context()
	tp, err := e.st.CreateTemplate(ctx, garrison.Template{Name: "mine", OSType: "linux", ForgeType: garrison.Gitea, Owner: "admin",
		Data: []byte(`#!/bin/bash
echo {{ .Forge }} {{ .RunnerName }} {{ sh .CallbackToken }} jit={{ .UseJITConfig }}`)})
	must(t, err)
	setPool := func(fn func(*garrison.Pool)) {
		_, err := e.st.UpdatePool(ctx, e.pool.ID, func(p *garrison.Pool) error { fn(p); return nil })
		must(t, err)
	}
	setPool(func(p *garrison.Pool) { p.TemplateID = tp.ID })
	_, tok := e.addInstance("garm-a", nil)
	e.do("GET", MetadataPrefix+"/install-script", tok, "").want(t, 200, "text/plain",
		"#!/bin/bash\necho gitea garm-a '"+tok+"' jit=false")

	_, err = e.st.UpdateTemplate(ctx, tp.ID, func(tp *garrison.Template) error {
		tp.Data = []byte("edited {{ .RunnerName }}")
		return nil
	})
	must(t, err)
	e.do("GET", MetadataPrefix+"/install-script", tok, "").want(t, 200, "text/plain", "edited garm-a")

	override := base64.StdEncoding.EncodeToString([]byte("override {{ .RunnerName }}"))
	setPool(func(p *garrison.Pool) { p.ExtraSpecs = []byte(`{"runner_install_template":"` + override + `"}`) })
	e.do("GET", MetadataPrefix+"/install-script", tok, "").want(t, 200, "text/plain", "override garm-a")

	setPool(func(p *garrison.Pool) { p.ExtraSpecs = nil })
	_, err = e.st.UpdateTemplate(ctx, tp.ID, func(tp *garrison.Template) error {
		tp.Data = []byte("{{ index .ExtraContext 1 }}") // stored unvalidated: only the store is used here
		return nil
	})
	must(t, err)
	r := e.do("GET", MetadataPrefix+"/install-script", tok, "")
	if r.status != 400 || !strings.Contains(r.body, "failed to render runner install script: template: runner_install_template:1:3") {
		t.Fatalf("got %d %s", r.status, r.body)
	}
}

// TestInstallScriptSystemTemplateIsBuiltin checks that a pool using a seeded system
// template gets the same script as one stored before templates existed.
func TestInstallScriptSystemTemplateIsBuiltin(t *testing.T) {
	e := newEnv(t, envConfig{})
	ctx := t.Context()
	_, tok := e.addInstance("garm-a", nil)
	builtin := e.do("GET", MetadataPrefix+"/install-script", tok, "")
	st, err := bootstrap.SystemTemplateFor("github", "linux")
	must(t, err)
	tp, err := e.st.CreateTemplate(ctx, garrison.Template{Name: st.Name, OSType: st.OSType, ForgeType: garrison.GitHub,
		Owner: garrison.SystemOwner, Data: st.Data})
	must(t, err)
	_, err = e.st.UpdatePool(ctx, e.pool.ID, func(p *garrison.Pool) error { p.TemplateID = tp.ID; return nil })
	must(t, err)
	e.do("GET", MetadataPrefix+"/install-script", tok, "").want(t, 200, "text/plain", builtin.body)
}

package instanceapi

import (
	"encoding/base64"
	"encoding/json"
	"github.com/garrison-ci/garrison/internal/httperr"
	"net/http"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/provider"
)

func proxyConfig(http, https, no string) provider.ProxyConfig {
	return provider.ProxyConfig{HTTPProxy: http, HTTPSProxy: https, NoProxy: no}
}

func TestRunnerMetadata(t *testing.T) {
	ca := testCertPEM(t, 7)
	e := newEnv(t, envConfig{extraSpecs: `{"foo":"bar"}`, caBundle: ca})
	_, tok := e.addInstance("garm-a", nil)
	r := e.do("GET", MetadataPrefix+"/runner-metadata/", tok, "")
	r.want(t, 200, "application/json", "*")
	want := `{"metadata_access":{"callback_url":"` + e.ctrl.CallbackURL + `","metadata_url":"` + e.ctrl.MetadataURL +
		`","agent_url":"` + e.srv.URL + `"},"forge_type":"github","runner_registration_url":"https://ghe.example/acme/widgets",` +
		`"runner_name":"garm-a","runner_labels":["linux","x64","runner-controller-id=` + e.ctrl.ID + `","runner-pool-id=` + e.pool.ID + `"],` +
		`"ca_bundles":{"forge_ca":"` + base64.StdEncoding.EncodeToString(ca) + `"},"extra_specs":{"foo":"bar"},"agent_mode":false,` +
		`"jit_enabled":false,"runner_tools":{"os":"linux","architecture":"x64","download_url":"https://dl/linux-x64.tgz","filename":"linux-x64.tgz","sha256_checksum":"abc"}}`
	if r.body != want {
		t.Fatalf("got  %s\nwant %s", r.body, want)
	}

	_, jit := e.addInstance("garm-j", func(i *garrison.Instance) { i.JITConfig = jitConfig() })
	var md map[string]any
	must(t, json.Unmarshal([]byte(e.do("GET", MetadataPrefix+"/runner-metadata", jit, "").body), &md))
	if md["jit_enabled"] != true || md["runner_labels"] != nil {
		t.Fatalf("JIT metadata %v", md)
	}
}

func TestRunnerMetadataNoTools(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", func(i *garrison.Instance) { i.OSArch = garrison.ArchARM64 })
	e.do("GET", MetadataPrefix+"/runner-metadata", tok, "").want(t, 500, "application/json", `{"error":"Server error","details":""}`)
}

func TestServiceName(t *testing.T) {
	tests := []struct {
		typ  garrison.EntityType
		want string
	}{
		{garrison.Repository, "actions.runner.acme.widgets"},
		{garrison.Organization, "actions.runner.widgets"},
		{garrison.Enterprise, "actions.runner.widgets"},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			e := newEnv(t, envConfig{entityType: tt.typ})
			_, tok := e.addInstance("garm-a", nil)
			e.do("GET", MetadataPrefix+"/system/service-name/", tok, "").want(t, 200, "text/plain", tt.want)
		})
	}
}

func TestUnitFile(t *testing.T) {
	gh := "[Unit]\nDescription=GitHub Actions Runner (actions.runner.acme.widgets)\nAfter=network.target\n\n" +
		"[Service]\nExecStart=/home/ci/actions-runner/runsvc.sh\nUser=ci\nWorkingDirectory=/home/ci/actions-runner\n" +
		"KillMode=process\nKillSignal=SIGTERM\nTimeoutStopSec=5min\n\n[Install]\nWantedBy=multi-user.target\n"
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	e.do("GET", MetadataPrefix+"/systemd/unit-file?runAsUser=ci", tok, "").want(t, 200, "text/plain", gh)
	r := e.do("GET", MetadataPrefix+"/systemd/unit-file/", tok, "")
	if !strings.Contains(r.body, "User=runner\n") {
		t.Fatalf("default user: %s", r.body)
	}
	e.do("GET", MetadataPrefix+"/systemd/unit-file?runAsUser=a%0Ab", tok, "").
		want(t, 400, "application/json", `{"error":"Bad Request","details":"invalid runAsUser"}`)

	e2 := newEnv(t, envConfig{forge: garrison.Gitea, entityType: garrison.Organization})
	_, tok2 := e2.addInstance("garm-b", nil)
	gitea := "[Unit]\nDescription=Gitea Runner (actions.runner.widgets)\nAfter=network.target\n\n" +
		"[Service]\nExecStart=/home/runner/gitea-runner/gitea-runner daemon --once\nUser=runner\nWorkingDirectory=/home/runner/gitea-runner\n" +
		"KillMode=process\nKillSignal=SIGTERM\nTimeoutStopSec=5min\nRestart=always\n\n[Install]\nWantedBy=multi-user.target\n"
	e2.do("GET", MetadataPrefix+"/systemd/unit-file?runAsUser=runner", tok2, "").want(t, 200, "text/plain", gitea)
}

func TestUnitFileProxy(t *testing.T) {
	got, err := UnitFile(garrison.GitHub, "svc", "runner", proxyConfig("http://u:p%41@proxy:3128", "", "localhost"))
	must(t, err)
	want := "Environment=\"HTTP_PROXY=http://u:p%%41@proxy:3128\"\nEnvironment=\"http_proxy=http://u:p%%41@proxy:3128\"\n" +
		"Environment=\"NO_PROXY=localhost\"\nEnvironment=\"no_proxy=localhost\"\nKillMode=process\n"
	if !strings.Contains(string(got), "WorkingDirectory=/home/runner/actions-runner\n"+want) {
		t.Fatalf("unit:\n%s", got)
	}
}

func TestCertBundle(t *testing.T) {
	ca1, ca2 := testCertPEM(t, 11), testCertPEM(t, 22)
	tests := []struct {
		name       string
		forge, ctl []byte
		want       string
	}{
		{"none", nil, nil, `{}`},
		{"unparseable", []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), nil, `{"root_certificates":{}}`},
		{"both", ca1, ca2, `{"root_certificates":{"11":"` + base64.StdEncoding.EncodeToString(ca1) +
			`","22":"` + base64.StdEncoding.EncodeToString(ca2) + `"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envConfig{caBundle: tt.forge})
			if tt.ctl != nil {
				_, err := e.st.UpdateController(t.Context(), func(c *garrison.Controller) error { c.CACertBundle = tt.ctl; return nil })
				must(t, err)
			}
			_, tok := e.addInstance("garm-a", nil)
			e.do("GET", MetadataPrefix+"/system/cert-bundle", tok, "").want(t, 200, "application/json", tt.want)
		})
	}
}

func TestAgentTools(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	e.do("GET", MetadataPrefix+"/tools/garm-agent?page=0&pageSize=25", tok, "").
		want(t, 200, "application/json", `{"total_count":0,"pages":0,"current_page":0,"results":[]}`)
	e.do("GET", MetadataPrefix+"/tools/garm-agent/3/", tok, "").
		want(t, 404, "application/json", `{"error":"Not Found","details":"garm-agent tool 3 not found"}`)
	e.do("GET", MetadataPrefix+"/tools/garm-agent/3/download", tok, "").want(t, 404, "application/json", "*")
	e.do("GET", MetadataPrefix+"/tools/garm-agent/x", tok, "").
		want(t, 400, "application/json", `{"error":"Bad Request","details":"invalid tool id \"x\""}`)
}

func TestUnknownRoute(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	notFound := `{"error":"Not found","details":"Resource not found"}`
	e.do("GET", MetadataPrefix+"/nope", tok, "").want(t, 404, "application/json", notFound)
	e.do("GET", CallbackPrefix+"/status", tok, "").want(t, 404, "application/json", notFound)
	e.do("GET", MetadataPrefix+"/nope", "", "").wantAuthFailed(t) // middleware first
	r := e.do("OPTIONS", MetadataPrefix+"/runner-metadata", tok, "")
	if r.status != 200 || r.header.Get("Allow") != "GET, OPTIONS" {
		t.Fatalf("OPTIONS: %d %q", r.status, r.header.Get("Allow"))
	}
}

func TestInstallScriptEndpoint(t *testing.T) {
	override := base64.StdEncoding.EncodeToString([]byte(
		`#!/bin/bash
echo {{ .RunnerName }} {{ .CallbackToken }} {{ .FileName }} {{ index .ExtraContext "k" }} {{ .EnableBootDebug }} {{ .RunnerLabels }}`))
	tests := []struct {
		name, specs string
		status      int
		ct, body    string
	}{
		{name: "builtin", status: 200, ct: "text/plain", body: "*"},
		{name: "override", specs: `{"runner_install_template":"` + override + `","extra_context":{"k":"v"},"enable_boot_debug":true}`,
			status: 200, ct: "text/plain", body: "#!/bin/bash\necho garm-a TOKEN linux-x64.tgz v true linux,x64,runner-controller-id=CTRL,runner-pool-id=POOL"},
		{name: "boot debug not bool", specs: `{"runner_install_template":"` + override + `","enable_boot_debug":"true"}`,
			status: 200, ct: "text/plain", body: "#!/bin/bash\necho garm-a TOKEN linux-x64.tgz  false linux,x64,runner-controller-id=CTRL,runner-pool-id=POOL"},
		{name: "render error", specs: `{"runner_install_template":"` + base64.StdEncoding.EncodeToString([]byte("{{ .Nope }}")) + `"}`,
			status: 400, ct: "application/json", body: "*"},
		{name: "not base64", specs: `{"runner_install_template":"%%%"}`, status: 400, ct: "application/json", body: "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envConfig{extraSpecs: tt.specs})
			_, tok := e.addInstance("garm-a", nil)
			body := strings.NewReplacer("TOKEN", tok, "CTRL", e.ctrl.ID, "POOL", e.pool.ID).Replace(tt.body)
			r := e.do("GET", MetadataPrefix+"/install-script", tok, "")
			r.want(t, tt.status, tt.ct, body)
			if tt.name == "builtin" && !strings.Contains(r.body, tok) {
				t.Fatal("built-in script lacks the callback token")
			}
		})
	}
}

// TestInstallScriptRunnerGroup checks that a repository pool's runner group does not reach
// the install script (repositories have no runner groups; GitHub refuses the flag), while
// an organization pool's does.
func TestInstallScriptRunnerGroup(t *testing.T) {
	tmpl := base64.StdEncoding.EncodeToString([]byte(`group=[{{ .GitHubRunnerGroup }}]`))
	for typ, want := range map[garrison.EntityType]string{garrison.Repository: "group=[]", garrison.Organization: "group=[team]"} {
		t.Run(string(typ), func(t *testing.T) {
			e := newEnv(t, envConfig{entityType: typ, group: "team", extraSpecs: `{"runner_install_template":"` + tmpl + `"}`})
			_, tok := e.addInstance("garm-a", nil)
			e.do("GET", MetadataPrefix+"/install-script", tok, "").want(t, 200, "text/plain", want)
		})
	}
}

func TestInstallScriptNoTemplate(t *testing.T) {
	e := newEnv(t, envConfig{})
	e.addInstance("garm-a", func(i *garrison.Instance) { i.OSType = "darwin" })
	// darwin has neither runner tools nor a template; tools are looked up first (500),
	// so check the template choice directly.
	ai := &authInfo{entity: e.entity, pool: e.pool, inst: e.instance("garm-a")}
	_, err := scriptFor(ai, bootstrap.ExtraSpecs{}, bootstrap.InstallContext{})
	if status, body := httperr.Response(err); status != http.StatusConflict ||
		body.Details != "pool or scale set has no template associated and no template is defined in extra_specs" {
		t.Fatalf("got %d %+v", status, body)
	}
}

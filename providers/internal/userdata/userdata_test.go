package userdata

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/provider"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// bootstrap is a typical CreateInstance request.
func bootstrap() provider.BootstrapInstance {
	return provider.BootstrapInstance{
		Name: "garrison-abc", OSType: "linux", OSArch: "amd64", PoolID: "pool-1",
		MetadataURL: "http://10.213.0.1:9997/api/v1/metadata", CallbackURL: "http://10.213.0.1:9997/api/v1/callbacks",
		InstanceToken: "tok'en", RepoURL: "https://github.example/o/r", Labels: []string{"a", "b"},
		Tools: []provider.RunnerApplicationDownload{
			{OS: "win", Architecture: "x64", Filename: "win.zip"},
			{OS: "linux", Architecture: "x64", Filename: "linux.tgz", DownloadURL: "https://dl/linux.tgz"},
		},
	}
}

// testCA returns a self-signed certificate as PEM.
func testCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		ok   bool
	}{
		{"empty", Spec{}, true},
		{"template", Spec{RunnerInstallTemplate: b64("echo {{ .RunnerName }}")}, true},
		{"template not base64", Spec{RunnerInstallTemplate: "!!"}, false},
		{"template does not parse", Spec{RunnerInstallTemplate: b64("{{ .X ")}, false},
		{"script", Spec{PreInstallScripts: map[string]string{"01-a.sh": b64("true")}}, true},
		{"script bad name", Spec{PreInstallScripts: map[string]string{"../x": b64("true")}}, false},
		{"script not base64", Spec{PreInstallScripts: map[string]string{"a": "%%"}}, false},
		{"package", Spec{ExtraPackages: []string{"jq", "libc6:amd64"}}, true},
		{"package injection", Spec{ExtraPackages: []string{"jq; rm -rf /"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidSpec) {
				t.Errorf("error %v is not ErrInvalidSpec", err)
			}
		})
	}
}

func TestPackages(t *testing.T) {
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{}, "curl,tar"},
		{Spec{ExtraPackages: []string{"jq", "curl"}}, "curl,tar,jq"},
		{Spec{DisableUpdates: true, ExtraPackages: []string{"jq"}}, "jq"},
		{Spec{DisableUpdates: true}, ""},
	}
	for _, tt := range tests {
		if got := strings.Join(tt.spec.Packages(), ","); got != tt.want {
			t.Errorf("Packages(%+v) = %q, want %q", tt.spec, got, tt.want)
		}
	}
}

func TestInstallScript(t *testing.T) {
	tmpl := "{{ .RunnerName }}|{{ .FileName }}|{{ .DownloadURL }}|{{ .RunnerLabels }}|{{ .CallbackToken }}|" +
		"{{ .EnableBootDebug }}|{{ index .ExtraContext \"k\" }}|{{ index .ExtraContext \"missing\" }}|{{ .RunnerUsername }}"
	s := Spec{RunnerInstallTemplate: b64(tmpl), EnableBootDebug: true, ExtraContext: map[string]string{"k": "v"}}
	got, err := InstallScript(bootstrap(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := "garrison-abc|linux.tgz|https://dl/linux.tgz|a,b|tok'en|true|v||runner"
	if string(got) != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
	def, err := InstallScript(bootstrap(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{"TOKEN='tok'\"'\"'en'", "/install-script/", "/status"} {
		if !strings.Contains(string(def), frag) {
			t.Errorf("default script lacks %q:\n%s", frag, def)
		}
	}
	if _, err := InstallScript(bootstrap(), Spec{RunnerInstallTemplate: b64("{{ .Nope }}")}); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("unknown field: err %v, want ErrInvalidSpec", err)
	}
}

func TestMatchTools(t *testing.T) {
	tools := []provider.RunnerApplicationDownload{
		{OS: "linux", Architecture: "arm64", Filename: "a"},
		{OS: "windows", Architecture: "amd64", Filename: "b"},
		{OS: "linux", Architecture: "x64", Filename: "c"},
	}
	tests := []struct{ os, arch, want string }{
		{"linux", "arm64", "a"}, {"windows", "amd64", "b"}, {"linux", "amd64", "c"}, {"linux", "arm", ""},
	}
	for _, tt := range tests {
		got, _ := MatchTools(tools, tt.os, tt.arch)
		if got.Filename != tt.want {
			t.Errorf("MatchTools(%s, %s) = %q, want %q", tt.os, tt.arch, got.Filename, tt.want)
		}
	}
}

// decodeCloudConfig checks the header and decodes the JSON body.
func decodeCloudConfig(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	body, ok := strings.CutPrefix(string(doc), Header)
	if !ok {
		t.Fatalf("document does not start with %q", Header)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body is not JSON (YAML): %v", err)
	}
	return m
}

func TestCloudConfig(t *testing.T) {
	bi := bootstrap()
	bi.CACertBundle = testCA(t)
	bi.SSHKeys = []string{"ssh-ed25519 AAAA test"}
	bi.ProxyConfig.HTTPProxy = "http://proxy:3128"
	s := Spec{RunnerInstallTemplate: b64("#!/bin/bash\necho {{ .RunnerName }}\n"), ExtraPackages: []string{"jq"},
		PreInstallScripts: map[string]string{"20-b": b64("echo b"), "10-a": b64("echo a")}}
	doc, err := CloudConfig(bi, s)
	if err != nil {
		t.Fatal(err)
	}
	m := decodeCloudConfig(t, doc)
	if m["package_upgrade"] != true {
		t.Errorf("package_upgrade = %v", m["package_upgrade"])
	}
	if got := toJSON(m["packages"]); got != `["curl","tar","jq"]` {
		t.Errorf("packages = %s", got)
	}
	wantRun := `["/garm-pre-install/10-a","/garm-pre-install/20-b","rm -rf /garm-pre-install","su -l -c /install_runner.sh runner","rm -f /install_runner.sh"]`
	if got := toJSON(m["runcmd"]); got != wantRun {
		t.Errorf("runcmd = %s\nwant %s", got, wantRun)
	}
	files := m["write_files"].([]any)
	last := files[len(files)-1].(map[string]any)
	script, _ := base64.StdEncoding.DecodeString(last["content"].(string))
	if last["path"] != InstallScriptPath || string(script) != "#!/bin/bash\necho garrison-abc\n" || last["permissions"] != "0755" {
		t.Errorf("install script entry = %v (%q)", last, script)
	}
	if got := toJSON(m["ca_certs"]); !strings.Contains(got, "BEGIN CERTIFICATE") {
		t.Errorf("ca_certs = %s", got)
	}
	users := toJSON(m["users"])
	if !strings.Contains(users, `"default"`) || !strings.Contains(users, `"name":"runner"`) || !strings.Contains(users, "ssh-ed25519") {
		t.Errorf("users = %s", users)
	}
	if !strings.Contains(toJSON(m["bootcmd"]), "Acquire::http::Proxy") {
		t.Errorf("bootcmd = %s", toJSON(m["bootcmd"]))
	}
}

func TestCloudConfigDisableUpdatesAndBadCA(t *testing.T) {
	m := decodeCloudConfig(t, must(CloudConfig(bootstrap(), Spec{DisableUpdates: true})))
	if m["package_upgrade"] != false || toJSON(m["packages"]) != "[]" {
		t.Errorf("disable_updates: package_upgrade %v packages %s", m["package_upgrade"], toJSON(m["packages"]))
	}
	if _, ok := m["ca_certs"]; ok {
		t.Error("ca_certs present without a bundle")
	}
	bi := bootstrap()
	bi.CACertBundle = []byte("not a certificate")
	if _, err := CloudConfig(bi, Spec{}); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("bad CA bundle: err %v, want ErrInvalidSpec", err)
	}
}

func TestShellScript(t *testing.T) {
	bi := bootstrap()
	bi.CACertBundle = testCA(t)
	s := Spec{RunnerInstallTemplate: b64("echo {{ .RunnerName }}"), ExtraPackages: []string{"jq"},
		PreInstallScripts: map[string]string{"b": b64("echo b"), "a": b64("echo a")}}
	out := string(must(ShellScript(bi, s)))
	order := []string{DoneMarker, "useradd", "update-ca-certificates", "apt-get install -y -q jq",
		"'/garm-pre-install/a'\n", "'/garm-pre-install/b'\n", "rm -rf /garm-pre-install", b64("echo garrison-abc"), "su -l -c /install_runner.sh runner"}
	pos := 0
	for _, frag := range order {
		i := strings.Index(out[pos:], frag)
		if i < 0 {
			t.Fatalf("script lacks %q after offset %d:\n%s", frag, pos, out)
		}
		pos += i
	}
}

func TestDecodeStrict(t *testing.T) {
	type specs struct {
		Spec
		Extra int `json:"extra"`
	}
	tests := []struct {
		in string
		ok bool
	}{
		{"", true}, {"null", true}, {"{}", true}, {`{"extra":1,"disable_updates":true}`, true},
		{`{"unknown":1}`, false}, {`[]`, false}, {`{"extra":"x"}`, false}, {`{} {}`, false},
	}
	for _, tt := range tests {
		var v specs
		err := DecodeStrict(json.RawMessage(tt.in), &v)
		if (err == nil) != tt.ok {
			t.Errorf("DecodeStrict(%s) = %v, want ok=%v", tt.in, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidSpec) {
			t.Errorf("DecodeStrict(%s): %v is not ErrInvalidSpec", tt.in, err)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

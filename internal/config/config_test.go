package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	strongPass = "q7Vd2LmX9zKp4RtW8yBn3HsJ6fGc1AeU" // 32 characters
	strongJWT  = "N4vQ8xZr2mKd7WpL5tYh9BcJ3sFg6AeU1oIu0yTrEwQaSdFgHjKlZxCvBnM2qW3e"
)

// writeFile creates a file in dir with the given mode and returns its path.
func writeFile(t *testing.T, dir, name, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// fixture holds real files that provider settings can point at.
type fixture struct {
	dir, exe, noExec, providerDir, providerConf string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	dir := t.TempDir()
	pdir := filepath.Join(dir, "providers.d")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, pdir, DefaultProviderExecutable, "#!/bin/sh\n", 0o755)
	return fixture{
		dir:          dir,
		exe:          writeFile(t, dir, "garm-provider-lxd", "#!/bin/sh\n", 0o755),
		noExec:       writeFile(t, dir, "not-executable", "#!/bin/sh\n", 0o644),
		providerDir:  pdir,
		providerConf: writeFile(t, dir, "lxd.toml", "", 0o600),
	}
}

// fullConfig is a GARM-style config touching every section.
func (fx fixture) fullConfig() string {
	return fmt.Sprintf(`
[default]
enable_webhook_management = true
callback_url = "https://garrison.example.com/api/v1/callbacks"
metadata_url = "https://garrison.example.com/api/v1/metadata"
webhook_url = "https://garrison.example.com/webhooks"
debug_server = true

[logging]
log_file = "/var/log/garrison.log"
enable_log_streamer = false
log_format = "json"
log_level = "debug"
log_source = true

[metrics]
enable = true
disable_auth = true
period = "60s"

[jwt_auth]
secret = %[1]q
time_to_live = "8760h"

[apiserver]
bind = "0.0.0.0"
port = 9998
use_tls = false
cors_origins = ["https://ui.example.com"]
  [apiserver.tls]
  certificate = ""
  key = ""

[database]
backend = "sqlite3"
passphrase = %[2]q
debug = true
  [database.sqlite3]
  db_file = %[3]q
  busy_timeout_seconds = 9

[[provider]]
name = "lxd_local"
provider_type = "external"
description = "Local LXD"
disable_jit_config = true
  [provider.external]
  provider_executable = %[4]q
  config_file = %[5]q
  environment_variables = ["LXD_", "AWS_REGION"]
  interface_version = "v0.1.1"
  exec_timeout_seconds = 120
  max_concurrency = 4

[[provider]]
name = "from_dir"
provider_type = "external"
exec_timeout_seconds = 30
  [provider.external]
  provider_dir = %[6]q
`, strongJWT, strongPass, filepath.Join(fx.dir, "garm.db"), fx.exe, fx.providerConf, fx.providerDir)
}

func TestParseFullConfig(t *testing.T) {
	fx := newFixture(t)
	cfg, err := Parse([]byte(fx.fullConfig()))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"webhook management", cfg.Default.EnableWebhookManagement, true},
		{"callback url", cfg.Default.CallbackURL, "https://garrison.example.com/api/v1/callbacks"},
		{"debug server", cfg.Default.DebugServer, true},
		{"log file", cfg.Logging.File, "/var/log/garrison.log"},
		{"log format", cfg.Logging.Format, LogFormatJSON},
		{"log level", cfg.Logging.Level, slog.LevelDebug},
		{"log source", cfg.Logging.Source, true},
		{"log streamer", cfg.Logging.EnableLogStreamer, false},
		{"metrics auth", cfg.Metrics.DisableAuth, true},
		{"metrics period", cfg.Metrics.Period, 60 * time.Second},
		{"jwt ttl", cfg.JWTAuth.TimeToLive, 8760 * time.Hour},
		{"jwt secret", cfg.JWTAuth.Secret, strongJWT},
		{"addr", cfg.APIServer.Addr(), "0.0.0.0:9998"},
		{"cors", strings.Join(cfg.APIServer.CORSOrigins, ","), "https://ui.example.com"},
		{"backend", cfg.Database.Backend, BackendSQLite},
		{"passphrase", cfg.Database.Passphrase, strongPass},
		{"db file", cfg.Database.SQLite.DBFile, filepath.Join(fx.dir, "garm.db")},
		{"busy timeout", cfg.Database.SQLite.BusyTimeout, 9 * time.Second},
		{"providers", len(cfg.Providers), 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	p, ok := cfg.Provider("lxd_local")
	if !ok {
		t.Fatal("provider lxd_local missing")
	}
	if p.Executable != fx.exe || p.ConfigFile != fx.providerConf || p.InterfaceVersion != InterfaceV011 ||
		p.ExecTimeout != 2*time.Minute || p.MaxConcurrency != 4 || !p.DisableJITConfig ||
		strings.Join(p.EnvironmentVariables, ",") != "LXD_,AWS_REGION" || p.Description != "Local LXD" {
		t.Errorf("lxd_local = %+v", p)
	}
	d := cfg.Providers[1]
	if d.Executable != filepath.Join(fx.providerDir, DefaultProviderExecutable) ||
		d.InterfaceVersion != InterfaceV010 || d.ExecTimeout != 30*time.Second || d.MaxConcurrency != DefaultMaxConcurrency {
		t.Errorf("from_dir = %+v", d)
	}
}

func TestParseEmptyUsesDefaults(t *testing.T) {
	cfg, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Default("")
	if cfg.APIServer.Addr() != "127.0.0.1:9997" || cfg.Logging != want.Logging || cfg.Metrics != want.Metrics ||
		cfg.JWTAuth != want.JWTAuth || cfg.Database.Backend != BackendSQLite ||
		cfg.Database.SQLite.BusyTimeout != DefaultBusyTimeout || len(cfg.Providers) != 0 {
		t.Fatalf("Parse(nil) = %+v, want defaults %+v", cfg, want)
	}
	cfg.SetDataDir("/data")
	if cfg.Database.SQLite.DBFile != "/data/garrison.db" {
		t.Fatalf("db file = %q", cfg.Database.SQLite.DBFile)
	}
}

func TestDefault(t *testing.T) {
	c := Default("/var/lib/garrison")
	if c.APIServer.Addr() != "127.0.0.1:9997" || c.Database.SQLite.DBFile != "/var/lib/garrison/garrison.db" ||
		!c.Metrics.Enable || c.Metrics.DisableAuth || c.Logging.Level != slog.LevelInfo ||
		c.Logging.Format != LogFormatText || c.JWTAuth.TimeToLive != 24*time.Hour || len(c.Providers) != 0 ||
		c.Database.Passphrase != "" || c.JWTAuth.Secret != "" {
		t.Fatalf("Default = %+v", c)
	}
}

func TestAddrIPv6(t *testing.T) {
	if got := (APIServer{Bind: "::", Port: 1}).Addr(); got != "[::]:1" {
		t.Fatalf("Addr = %q", got)
	}
}

// TestParseErrors checks that each bad input yields an error naming the key
// and saying what is expected.
func TestParseErrors(t *testing.T) {
	fx := newFixture(t)
	prov := func(external string) string {
		return "[[provider]]\nname = \"p\"\nprovider_type = \"external\"\n[provider.external]\n" + external
	}
	exe := fmt.Sprintf("provider_executable = %q\n", fx.exe)
	tests := []struct {
		name, doc string
		key, want string // FieldError key and a fragment of its problem
	}{
		{"backend", "[database]\nbackend = \"mysql\"", "database.backend", `must be "sqlite3" or "postgresql", got "mysql"`},
		{"port zero", "[apiserver]\nport = 0", "apiserver.port", "must be 1-65535"},
		{"port high", "[apiserver]\nport = 70000", "apiserver.port", "must be 1-65535"},
		{"port type", "[apiserver]\nport = \"9997\"", "apiserver.port", "expected integer, got string"},
		{"bool type", "[metrics]\nenable = 1", "metrics.enable", "expected boolean, got integer"},
		{"list type", "[apiserver]\ncors_origins = \"*\"", "apiserver.cors_origins", "expected an array of strings"},
		{"list item type", "[apiserver]\ncors_origins = [1]", "apiserver.cors_origins", "item 0: expected string, got integer"},
		{"table type", "apiserver = 1", "apiserver", "expected a table"},
		{"provider table type", "provider = 3", "provider", "expected an array of tables"},
		{"nested type", prov("max_concurrency = \"4\""), "provider[0].external.max_concurrency", "expected integer, got string"},
		{"bind", "[apiserver]\nbind = \"localhost\"", "apiserver.bind", "must be an IP address"},
		{"ttl", "[jwt_auth]\ntime_to_live = \"3x\"", "jwt_auth.time_to_live", `invalid duration "3x"`},
		{"period", "[metrics]\nperiod = \"-1s\"", "metrics.period", "must be positive"},
		{"scale down grace", "[reconcile]\nscale_down_grace = \"0s\"", "reconcile.scale_down_grace", "must be positive"},
		{"sweep interval", "[reconcile]\nsweep_interval = \"often\"", "reconcile.sweep_interval", `invalid duration "often"`},
		{"create attempts", "[reconcile]\nmax_create_attempts = 0", "reconcile.max_create_attempts", "must be 1-100"},
		{"log level", "[logging]\nlog_level = \"trace\"", "logging.log_level", `got "trace"`},
		{"log format", "[logging]\nlog_format = \"xml\"", "logging.log_format", `must be "text" or "json"`},
		{"callback url", "[default]\ncallback_url = \"not a url\"", "default.callback_url", "absolute http or https URL"},
		{"passphrase length", "[database]\npassphrase = \"short\"", "database.passphrase", "exactly 32 characters"},
		{"passphrase weak", "[database]\npassphrase = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "database.passphrase", "too weak"},
		{"jwt weak", "[jwt_auth]\nsecret = \"password\"", "jwt_auth.secret", "too weak"},
		{"tls without cert", "[apiserver]\nuse_tls = true", "apiserver.tls.certificate", "required when apiserver.use_tls"},
		{"tls bad files", "[apiserver]\nuse_tls = true\n[apiserver.tls]\ncertificate = \"/nonexistent.crt\"\nkey = \"/nonexistent.key\"", "apiserver.tls", "cannot load certificate"},
		{"tls bad ca", fmt.Sprintf("[apiserver]\nuse_tls = false\n[apiserver.tls]\nca_certificate = %q", fx.providerConf), "", ""},
		{"cors both", "[apiserver]\ncors_origins = [\"a\"]\ncors_allowed_origins = [\"b\"]", "apiserver.cors_allowed_origins", "not both"},
		{"db file relative", "[database.sqlite3]\ndb_file = \"garm.db\"", "database.sqlite3.db_file", "absolute path"},
		{"db dir missing", "[database.sqlite3]\ndb_file = \"/nonexistent/dir/garm.db\"", "database.sqlite3.db_file", "does not exist"},
		{"busy timeout", "[database.sqlite3]\nbusy_timeout_seconds = -1", "database.sqlite3.busy_timeout_seconds", "must be >= 0"},
		{"pg missing", "[database]\nbackend = \"postgresql\"", "database.postgresql.hostname", "is required"},
		{"pg both", "[database]\nbackend = \"postgresql\"\n[database.postgresql]\ndsn = \"host=x\"\nhostname = \"y\"", "database.postgresql.dsn", "not both"},
		{"pg dsn", "[database]\nbackend = \"postgresql\"\n[database.postgresql]\ndsn = \"garbage\"", "database.postgresql.dsn", "connection string"},
		{"pg sslmode", "[database]\nbackend = \"postgresql\"\n[database.postgresql]\nhostname = \"h\"\nusername = \"u\"\ndatabase = \"d\"\nsslmode = \"on\"", "database.postgresql.sslmode", "must be one of"},
		{"pg port", "[database]\nbackend = \"postgresql\"\n[database.postgresql]\nhostname = \"h\"\nusername = \"u\"\ndatabase = \"d\"\nport = 0", "database.postgresql.port", "1-65535"},
		{"pg pool", "[database]\nbackend = \"postgresql\"\n[database.postgresql]\ndsn = \"host=h\"\nmax_open_conns = 0", "database.postgresql.max_open_conns", "must be >= 1"},
		{"provider name", "[[provider]]\nprovider_type = \"external\"\n[provider.external]\n" + exe, "provider[0].name", "is required"},
		{"provider type", "[[provider]]\nname = \"p\"\nprovider_type = \"lxd\"\n[provider.external]\n" + exe, "provider[0].provider_type", `must be "external", got "lxd"`},
		{"no executable", prov(""), "provider[0].external.provider_executable", "is required"},
		{"relative executable", prov("provider_executable = \"bin/p\""), "provider[0].external.provider_executable", "absolute path"},
		{"missing executable", prov(fmt.Sprintf("provider_executable = %q", filepath.Join(fx.dir, "nope"))), "provider[0].external.provider_executable", "does not exist"},
		{"not executable", prov(fmt.Sprintf("provider_executable = %q", fx.noExec)), "provider[0].external.provider_executable", "not executable"},
		{"executable is dir", prov(fmt.Sprintf("provider_executable = %q", fx.dir)), "provider[0].external.provider_executable", "not a regular file"},
		{"empty provider dir", prov(fmt.Sprintf("provider_dir = %q", fx.dir)), "provider[0].external.provider_dir", "does not exist"},
		{"config file relative", prov(exe + "config_file = \"lxd.toml\""), "provider[0].external.config_file", "absolute path"},
		{"config file missing", prov(exe + fmt.Sprintf("config_file = %q", filepath.Join(fx.dir, "nope.toml"))), "provider[0].external.config_file", "does not exist"},
		{"interface version", prov(exe + "interface_version = \"v0.2.0\""), "provider[0].external.interface_version", `must be "", "v0.1.0" or "v0.1.1"`},
		{"exec timeout", prov(exe + "exec_timeout_seconds = -5"), "provider[0].external.exec_timeout_seconds", "must be >= 0"},
		{"concurrency", prov(exe + "max_concurrency = 0"), "provider[0].external.max_concurrency", "must be >= 1"},
		{"command timeout unknown", prov(exe + "command_timeouts = { Reboot = 5 }"), "provider[0].external.command_timeouts", `unknown command "Reboot"`},
		{"command timeout zero", prov(exe + "command_timeouts = { ListInstances = 0 }"), "provider[0].external.command_timeouts", "ListInstances must be > 0"},
		{"conflicting knob", "[[provider]]\nname = \"p\"\nprovider_type = \"external\"\nmax_concurrency = 2\n[provider.external]\n" + exe + "max_concurrency = 3", "provider[0].max_concurrency", "different value"},
		{"empty env prefix", prov(exe + "environment_variables = [\"\"]"), "provider[0].external.environment_variables", "is empty"},
		{"duplicate", prov(exe) + "\n" + prov(exe), "provider[1].name", `duplicate provider name "p"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if tt.key == "" { // a bad CA bundle is only checked with use_tls
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			fe := findField(err, tt.key)
			if fe == nil {
				t.Fatalf("no FieldError for %q in: %v", tt.key, err)
			}
			if !strings.Contains(fe.Problem, tt.want) {
				t.Fatalf("problem %q does not contain %q", fe.Problem, tt.want)
			}
		})
	}
}

// TestLogStreamer: enable_log_streamer is read from [logging], else from the legacy
// [default] key (with a deprecation warning); [logging] wins when both are set.
func TestLogStreamer(t *testing.T) {
	tests := []struct {
		name, doc string
		want      bool
		warn      string
	}{
		{"unset", "", false, ""},
		{"logging", "[logging]\nenable_log_streamer = true", true, ""},
		{"legacy", "[default]\nenable_log_streamer = true", true, "default.enable_log_streamer"},
		{"logging wins", "[default]\nenable_log_streamer = true\n[logging]\nenable_log_streamer = false", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Logging.EnableLogStreamer != tt.want {
				t.Errorf("EnableLogStreamer = %v, want %v", cfg.Logging.EnableLogStreamer, tt.want)
			}
			warned := strings.Contains(fmt.Sprint(cfg.Warnings), tt.warn)
			if tt.warn != "" && !warned {
				t.Errorf("no warning about %s in %v", tt.warn, cfg.Warnings)
			}
		})
	}
}

// TestWarnWithoutEffect: settings accepted without an effect as set are warned about.
func TestWarnWithoutEffect(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		name, doc, want string // want: a fragment of the warning, "" for none
	}{
		{"sql log hidden", "[database]\ndebug = true", "database.debug"},
		{"sql log shown", "[logging]\nlog_level = \"debug\"\n[database]\ndebug = true", ""},
		{"client ca", fmt.Sprintf("[apiserver.tls]\nca_certificate = %q", fx.providerConf), "apiserver.tls.ca_certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(cfg.Warnings, "\n")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("warnings %q, want one about %q", cfg.Warnings, tt.want)
			}
		})
	}
}

// findField returns the *FieldError for key among the joined errors.
func findField(err error, key string) *FieldError {
	for _, e := range flatten(err) {
		var fe *FieldError
		if errors.As(e, &fe) && fe.Key == key {
			return fe
		}
	}
	return nil
}

// flatten unpacks errors.Join trees.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func TestParseCollectsSeveralErrors(t *testing.T) {
	doc := "[database]\nbackend = \"mysql\"\n[apiserver]\nport = 0\n[jwt_auth]\ntime_to_live = \"3x\"\n[logging]\nlog_level = \"loud\""
	_, err := Parse([]byte(doc))
	for _, key := range []string{"database.backend", "apiserver.port", "jwt_auth.time_to_live", "logging.log_level"} {
		if findField(err, key) == nil {
			t.Errorf("missing error for %s in %v", key, err)
		}
	}
}

func TestParseCollectsSeveralTypeErrors(t *testing.T) {
	doc := "[apiserver]\nport = \"x\"\nbind = 1\nprot = 3\n[metrics]\nenable = \"yes\""
	_, err := Parse([]byte(doc))
	for _, key := range []string{"apiserver.port", "apiserver.bind", "metrics.enable"} {
		if findField(err, key) == nil {
			t.Errorf("missing error for %s in %v", key, err)
		}
	}
	var uk *UnknownKeyError
	if !errors.As(err, &uk) || uk.Key != "apiserver.prot" {
		t.Errorf("missing unknown key apiserver.prot in %v", err)
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct{ doc, key, suggestion, msg string }{
		{"[apiserver]\nprot = 1", "apiserver.prot", "port", `unknown key "apiserver.prot" (did you mean "port"?)`},
		{"[databse]\nbackend = \"sqlite3\"", "databse", "database", `unknown key "databse" (did you mean "database"?)`},
		{"[[provider]]\nname=\"p\"\n[provider.external]\nconfig_fiel = \"x\"", "provider.external.config_fiel", "config_file", ""},
		{"[default]\nzzzzzzzzz = 1", "default.zzzzzzzzz", "", `unknown key "default.zzzzzzzzz"`},
		{"[proxy]\nhttp = \"x\"", "proxy", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			var uk *UnknownKeyError
			if !errors.As(err, &uk) {
				t.Fatalf("want UnknownKeyError, got %v", err)
			}
			if uk.Key != tt.key || uk.Suggestion != tt.suggestion {
				t.Fatalf("got key %q suggestion %q", uk.Key, uk.Suggestion)
			}
			if tt.msg != "" && uk.Error() != tt.msg {
				t.Fatalf("message %q, want %q", uk.Error(), tt.msg)
			}
		})
	}
}

func TestSyntaxError(t *testing.T) {
	_, err := Parse([]byte("[apiserver]\nport = = 1"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("want SyntaxError on line 2, got %v", err)
	}
}

func TestIgnoredGARMSectionsWarn(t *testing.T) {
	doc := `
[default]
config_dir = "/etc/garm"
log_file = "/tmp/garm.log"
[apiserver.webui]
enable = true
[database.mysql]
username = ""
[[github]]
name = "a"
oauth2_token = "x"
[[github]]
name = "b"
[jwt_auth]
time_to_live = "3h"
`
	cfg, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{"config_dir", "[database.mysql]", "[[github]]", "default.log_file", "jwt_auth.time_to_live"} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning mentioning %s in:\n%s", want, all)
		}
	}
	if strings.Count(all, "[[github]]") != 1 {
		t.Errorf("github warned more than once:\n%s", all)
	}
	if cfg.JWTAuth.TimeToLive != MinJWTTTL || cfg.Logging.File != "/tmp/garm.log" {
		t.Errorf("ttl %v, log file %q", cfg.JWTAuth.TimeToLive, cfg.Logging.File)
	}
}

// TestWebUI: the web UI is served unless [apiserver.webui] enable = false (GARM's key;
// garrison's default is on), and the section no longer warns.
func TestWebUI(t *testing.T) {
	tests := []struct {
		name, doc string
		want      bool
	}{
		{"absent", "", true},
		{"section without key", "[apiserver.webui]\n", true},
		{"enabled", "[apiserver.webui]\nenable = true\n", true},
		{"disabled", "[apiserver.webui]\nenable = false\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.APIServer.WebUI != tt.want {
				t.Errorf("WebUI = %v, want %v", cfg.APIServer.WebUI, tt.want)
			}
			if len(cfg.Warnings) != 0 {
				t.Errorf("warnings: %q", cfg.Warnings)
			}
		})
	}
	if !Default(t.TempDir()).APIServer.WebUI {
		t.Error("Default() has the web UI off")
	}
	_, err := Parse([]byte("[apiserver.webui]\nenable = \"yes\"\n"))
	if err == nil {
		t.Error("enable = \"yes\" accepted")
	}
}

func TestPostgres(t *testing.T) {
	tests := []struct{ name, section, dsn string }{
		{"dsn url", `dsn = "postgres://u:p@db:5432/garrison?sslmode=require"`, "postgres://u:p@db:5432/garrison?sslmode=require"},
		{"dsn kv", `dsn = "host=db dbname=garrison"`, "host=db dbname=garrison"},
		{"garm keys", "hostname = \"db\"\nusername = \"garm\"\npassword = \"it's \\\\secret\"\ndatabase = \"garm\"",
			`host='db' port=5432 user='garm' dbname='garm' sslmode='prefer' password='it\'s \\secret'`},
		{"garm keys port", "hostname = \"db\"\nusername = \"garm\"\ndatabase = \"garm\"\nport = 6432\nsslmode = \"verify-full\"",
			`host='db' port=6432 user='garm' dbname='garm' sslmode='verify-full'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte("[database]\nbackend = \"postgresql\"\n[database.postgresql]\n" + tt.section + "\nmax_open_conns = 7"))
			if err != nil {
				t.Fatal(err)
			}
			pg := cfg.Database.Postgres
			if pg.DSN != tt.dsn || pg.MaxOpenConns != 7 || pg.MaxIdleConns != DefaultMaxIdleConns ||
				pg.ConnMaxLifetime != DefaultConnMaxLifetime || pg.ConnMaxIdleTime != DefaultConnMaxIdleTime {
				t.Fatalf("postgres = %+v\nwant DSN %s", pg, tt.dsn)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	fx := newFixture(t)
	p := writeFile(t, fx.dir, "config.toml", fx.fullConfig(), 0o644)
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "readable by other users") {
		t.Fatalf("warnings = %q", cfg.Warnings)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err = Load(p); err != nil || len(cfg.Warnings) != 0 {
		t.Fatalf("Load 0600 = %v, warnings %q", err, cfg.Warnings)
	}
	if _, err := Load(filepath.Join(fx.dir, "missing.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load(missing) = %v", err)
	}
	bad := writeFile(t, fx.dir, "bad.toml", "[apiserver]\nport = 0\n", 0o600)
	_, err = Load(bad)
	if findField(errors.Unwrap(err), "apiserver.port") == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("Load(bad) = %v", err)
	}
}

func TestGARMWarningForGARMEnvPrefix(t *testing.T) {
	fx := newFixture(t)
	doc := fmt.Sprintf("[[provider]]\nname=\"p\"\nprovider_type=\"external\"\n[provider.external]\nprovider_executable=%q\nenvironment_variables=[\"GARM_X\"]", fx.exe)
	cfg, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "GARM_X") {
		t.Fatalf("warnings = %q", cfg.Warnings)
	}
}

func TestDefaultDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if d, err := DefaultDataDir(); err != nil || d != "/xdg/garrison" {
		t.Fatalf("with XDG_DATA_HOME: %q, %v", d, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/ci")
	if d, err := DefaultDataDir(); err != nil || d != "/home/ci/.local/share/garrison" {
		t.Fatalf("with relative XDG_DATA_HOME: %q, %v", d, err)
	}
}

func TestReconcileSection(t *testing.T) {
	cfg, err := Parse([]byte("[reconcile]\nscale_down_grace = \"30s\"\nmax_create_attempts = 3\nresync_interval = \"20s\"\nrepair_interval = \"2m\"\nsweep_interval = \"15m\"\nsweep_start_delay = \"10s\"\nretry_backoff = \"2s\"\nmax_retry_backoff = \"1m\"\nstranded_runner_timeout = \"3m\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Reconcile{ScaleDownGrace: 30 * time.Second, MaxCreateAttempts: 3, ResyncInterval: 20 * time.Second,
		RepairInterval: 2 * time.Minute, SweepInterval: 15 * time.Minute, SweepStartDelay: 10 * time.Second,
		RetryBackoff: 2 * time.Second, MaxRetryBackoff: time.Minute, StrandedTimeout: 3 * time.Minute}
	if cfg.Reconcile != want {
		t.Errorf("reconcile = %+v, want %+v", cfg.Reconcile, want)
	}
	if d := Default(t.TempDir()).Reconcile; d != defaultReconcile() || d.ScaleDownGrace != 5*time.Minute {
		t.Errorf("defaults = %+v", d)
	}
	for body, want := range map[string]string{
		"retry_backoff = \"0s\"":                              "reconcile.retry_backoff",
		"retry_backoff = \"soon\"":                            "reconcile.retry_backoff",
		"retry_backoff = \"1m\"\nmax_retry_backoff = \"10s\"": "must not be below reconcile.retry_backoff",
	} {
		if _, err := Parse([]byte("[reconcile]\n" + body + "\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one naming %q", body, err, want)
		}
	}
}

func TestServerSection(t *testing.T) {
	cfg, err := Parse([]byte("[server]\nreplica_id = \"garrison-a\"\nlease_ttl = \"15s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Server{ReplicaID: "garrison-a", LeaseTTL: 15 * time.Second}); cfg.Server != want {
		t.Errorf("server = %+v, want %+v", cfg.Server, want)
	}
	if d := Default(t.TempDir()).Server; d != (Server{LeaseTTL: time.Minute}) {
		t.Errorf("defaults = %+v", d)
	}
	for _, tc := range []struct {
		body string
		warn bool
	}{
		{`[server]` + "\n" + `lease_ttl = "15s"`, true},
		{`[server]` + "\n" + `lease_ttl = "15s"` + "\n[database]\n" + `backend = "postgresql"` + "\n[database.postgresql]\n" + `dsn = "postgres://db/x"`, false},
		{`[server]` + "\n" + `replica_id = "a"`, false},
	} {
		c, err := Parse([]byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "server.lease_ttl") })
		if warned != tc.warn {
			t.Errorf("%q: warned %v, want %v (%q)", tc.body, warned, tc.warn, c.Warnings)
		}
	}
	for body, want := range map[string]string{
		`replica_id = ""`:                                 "server.replica_id",
		`replica_id = "has space"`:                        "server.replica_id",
		`replica_id = "a,b"`:                              "server.replica_id",
		`replica_id = "é"`:                                "server.replica_id",
		`replica_id = "` + strings.Repeat("x", 101) + `"`: "server.replica_id",
		`lease_ttl = "500ms"`:                             "server.lease_ttl",
		`lease_ttl = "later"`:                             "server.lease_ttl",
	} {
		if _, err := Parse([]byte("[server]\n" + body + "\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one naming %q", body, err, want)
		}
	}
}

package server

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/provider"
)

// probeProviderScript records the environment of each call in env.<command> next to
// itself and answers GetVersion.
const probeProviderScript = `#!/bin/sh
/usr/bin/env > "${0%/*}/env.$GARM_COMMAND"
case "$GARM_COMMAND" in
GetVersion) echo v1.2.3 ;;
*) exit 1 ;;
esac
`

// controllerURLs sets the controller URLs the REST API requires before it lists providers.
const controllerURLs = "[default]\ncallback_url = \"https://garrison.example.com/api/v1/callbacks\"\n" +
	"metadata_url = \"https://garrison.example.com/api/v1/metadata\"\n"

// writeProbeProvider writes the probe provider into dir under name and returns its path.
func writeProbeProvider(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(probeProviderScript), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// providerSection is a [[provider]] named probe running the probe provider, with extra
// keys in [[provider]] and in [provider.external].
func providerSection(t *testing.T, top, external string) string {
	t.Helper()
	exe := writeProbeProvider(t, t.TempDir(), "garm-provider-probe")
	return fmt.Sprintf("[[provider]]\nname = \"probe\"\nprovider_type = \"external\"\n%s[provider.external]\nprovider_executable = %q\n%s",
		top, exe, external)
}

// providerCallEnv wires a server from body, has its first provider run GetVersion and
// returns the environment the provider saw.
func providerCallEnv(t *testing.T, body string) map[string]string {
	t.Helper()
	a, _ := probeApp(t, body)
	if len(a.providers) == 0 {
		t.Fatal("no provider")
	}
	if _, err := a.providers[0].exec.GetVersion(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(a.providers[0].cfg.Executable), "env.GetVersion"))
	if err != nil {
		t.Fatalf("the provider did not run: %v", err)
	}
	env := map[string]string{}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "="); ok {
			env[k] = v
		}
	}
	return env
}

func providerProbes() map[string]keyProbe {
	// execConfig observes the host-side settings the server gives its first provider.
	execConfig := func(t *testing.T, top, external string) (timeout time.Duration, concurrency int) {
		a, _ := probeApp(t, providerSection(t, top, external))
		c := providerExecConfig(a.providers[0].cfg, "", nil, nil)
		return c.ExecTimeout, c.MaxConcurrency
	}
	timeoutProbe := func(top, external string) keyProbe {
		return func(t *testing.T) {
			with, _ := execConfig(t, top, external)
			without, _ := execConfig(t, "", "")
			if with != 7*time.Second {
				t.Errorf("exec timeout %s, want 7s", with)
			}
			differs(t, "the exec timeout", without, with)
		}
	}
	concurrencyProbe := func(top, external string) keyProbe {
		return func(t *testing.T) {
			_, with := execConfig(t, top, external)
			_, without := execConfig(t, "", "")
			if with != 3 {
				t.Errorf("max concurrency %d, want 3", with)
			}
			differs(t, "the max concurrency", without, with)
		}
	}
	return map[string]keyProbe{
		"provider.name": func(t *testing.T) {
			a, _ := probeApp(t, controllerURLs+providerSection(t, "", ""))
			tok := adminToken(t, a, a.cfg.JWTAuth.Secret)
			resp := serveHTTP(a, http.MethodGet, "/api/v1/providers", tok, nil)
			if b := readBody(t, resp); !strings.Contains(b, `"name":"probe"`) {
				t.Errorf("GET /api/v1/providers does not list the provider by its name: %d %s", resp.StatusCode, b)
			}
			if _, _, err := a.reconcileOptions(nil).Providers.Provider("probe"); err != nil {
				t.Errorf("the reconciler does not know the provider by its name: %v", err)
			}
		},
		"provider.provider_type": func(t *testing.T) {
			refused(t, strings.Replace(providerSection(t, "", ""), `"external"`, `"lxd"`, 1), "provider[0].provider_type")
		},
		"provider.description": func(t *testing.T) {
			a, _ := probeApp(t, controllerURLs+providerSection(t, "description = \"probe provider\"\n", ""))
			tok := adminToken(t, a, a.cfg.JWTAuth.Secret)
			resp := serveHTTP(a, http.MethodGet, "/api/v1/providers", tok, nil)
			if b := readBody(t, resp); !strings.Contains(b, `"description":"probe provider"`) {
				t.Errorf("GET /api/v1/providers does not show the description: %d %s", resp.StatusCode, b)
			}
		},
		"provider.disable_jit_config": func(t *testing.T) {
			jit := func(top string) bool {
				a, _ := probeApp(t, providerSection(t, top, ""))
				_, settings, err := a.reconcileOptions(nil).Providers.Provider("probe")
				if err != nil {
					t.Fatal(err)
				}
				return settings.DisableJIT
			}
			if !jit("disable_jit_config = true\n") {
				t.Error("the reconciler uses JIT configs for the provider")
			}
			differs(t, "the reconciler's JIT setting", jit(""), jit("disable_jit_config = true\n"))
		},
		"provider.exec_timeout_seconds":          timeoutProbe("exec_timeout_seconds = 7\n", ""),
		"provider.external.exec_timeout_seconds": timeoutProbe("", "exec_timeout_seconds = 7\n"),
		"provider.external.command_timeouts": func(t *testing.T) {
			get := func(external string) time.Duration {
				a, _ := probeApp(t, providerSection(t, "", external))
				return providerExecConfig(a.providers[0].cfg, "", nil, nil).CommandTimeouts[provider.ListInstances]
			}
			with := get("command_timeouts = { ListInstances = 7 }\n")
			if with != 7*time.Second {
				t.Errorf("ListInstances limit %s, want 7s", with)
			}
			differs(t, "the ListInstances limit", get(""), with)
		},
		"provider.max_concurrency":          concurrencyProbe("max_concurrency = 3\n", ""),
		"provider.external.max_concurrency": concurrencyProbe("", "max_concurrency = 3\n"),
		"provider.external.provider_executable": func(t *testing.T) {
			if env := providerCallEnv(t, providerSection(t, "", "")); env["GARM_COMMAND"] != "GetVersion" {
				t.Errorf("the provider saw %v", env)
			}
		},
		"provider.external.provider_dir": func(t *testing.T) {
			dir := t.TempDir()
			writeProbeProvider(t, dir, config.DefaultProviderExecutable)
			body := fmt.Sprintf("[[provider]]\nname = \"probe\"\nprovider_type = \"external\"\n[provider.external]\nprovider_dir = %q\n", dir)
			providerCallEnv(t, body)
			if _, err := os.Stat(filepath.Join(dir, "env.GetVersion")); err != nil {
				t.Errorf("the executable in provider_dir did not run: %v", err)
			}
		},
		"provider.external.config_file": func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "probe.toml")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			env := providerCallEnv(t, providerSection(t, "", fmt.Sprintf("config_file = %q\n", file)))
			if env["GARM_PROVIDER_CONFIG_FILE"] != file {
				t.Errorf("GARM_PROVIDER_CONFIG_FILE = %q, want %q", env["GARM_PROVIDER_CONFIG_FILE"], file)
			}
		},
		"provider.external.environment_variables": func(t *testing.T) {
			t.Setenv("PROBEPFX_VALUE", "passed")
			with := providerCallEnv(t, providerSection(t, "", "environment_variables = [\"PROBEPFX_\"]\n"))
			without := providerCallEnv(t, providerSection(t, "", ""))
			if with["PROBEPFX_VALUE"] != "passed" {
				t.Error("the prefixed variable did not reach the provider")
			}
			differs(t, "the provider's PROBEPFX_VALUE", without["PROBEPFX_VALUE"], with["PROBEPFX_VALUE"])
		},
		"provider.external.interface_version": func(t *testing.T) {
			with := providerCallEnv(t, providerSection(t, "", "interface_version = \"v0.1.1\"\n"))
			without := providerCallEnv(t, providerSection(t, "", ""))
			if with["GARM_INTERFACE_VERSION"] != "v0.1.1" {
				t.Errorf("GARM_INTERFACE_VERSION = %q, want v0.1.1", with["GARM_INTERFACE_VERSION"])
			}
			differs(t, "GARM_INTERFACE_VERSION", without["GARM_INTERFACE_VERSION"], with["GARM_INTERFACE_VERSION"])
		},
	}
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func reconcileProbes() map[string]keyProbe {
	// paced is what the reconciler's options say about pacing (it schedules the sweeps).
	type paced struct {
		grace, resync, repair, sweep, sweepDelay time.Duration
		attempts                                 int
		backoff, maxBackoff, stranded            time.Duration
	}
	// observe wires a server with a [reconcile] body and returns its pacing.
	observe := func(t *testing.T, body string) paced {
		a, _ := probeApp(t, "[reconcile]\n"+body)
		r := a.reconcileOptions(nil)
		return paced{r.Policy.ScaleDownGrace, r.ResyncInterval, r.RepairInterval, r.SweepInterval, r.SweepStartDelay, r.Policy.MaxCreateAttempts,
			r.Policy.RetryBackoff, r.Policy.MaxRetryBackoff, r.Policy.StrandedAfter}
	}
	probe := func(setting string, get func(paced) any, want any) keyProbe {
		return func(t *testing.T) {
			with := get(observe(t, setting+"\n"))
			if with != want {
				t.Errorf("with %s: %v, want %v", setting, with, want)
			}
			differs(t, "the pacing", get(observe(t, "")), with)
		}
	}
	return map[string]keyProbe{
		"reconcile.scale_down_grace":        probe(`scale_down_grace = "17m"`, func(p paced) any { return p.grace }, 17*time.Minute),
		"reconcile.max_create_attempts":     probe("max_create_attempts = 17", func(p paced) any { return p.attempts }, 17),
		"reconcile.resync_interval":         probe(`resync_interval = "17s"`, func(p paced) any { return p.resync }, 17*time.Second),
		"reconcile.repair_interval":         probe(`repair_interval = "17m"`, func(p paced) any { return p.repair }, 17*time.Minute),
		"reconcile.sweep_interval":          probe(`sweep_interval = "17m"`, func(p paced) any { return p.sweep }, 17*time.Minute),
		"reconcile.sweep_start_delay":       probe(`sweep_start_delay = "17s"`, func(p paced) any { return p.sweepDelay }, 17*time.Second),
		"reconcile.retry_backoff":           probe(`retry_backoff = "1s"`, func(p paced) any { return p.backoff }, time.Second),
		"reconcile.max_retry_backoff":       probe(`max_retry_backoff = "17m"`, func(p paced) any { return p.maxBackoff }, 17*time.Minute),
		"reconcile.stranded_runner_timeout": probe(`stranded_runner_timeout = "17m"`, func(p paced) any { return p.stranded }, 17*time.Minute),
	}
}

// ignoredProbes: the GARM settings garrison ignores are each warned about.
func ignoredProbes() map[string]keyProbe {
	warn := func(body, fragment string) keyProbe {
		return func(t *testing.T) { warned(t, body, fragment) }
	}
	return map[string]keyProbe{
		"github":             warn("[[github]]\nname = \"gh\"\noauth2_token = \"x\"\n", "[[github]]"),
		"database.mysql":     warn("[database.mysql]\nhostname = \"db\"\n", "[database.mysql]"),
		"default.config_dir": warn("[default]\nconfig_dir = \"/etc/garm\"\n", "config_dir"),
		"provider.lxd": func(t *testing.T) {
			warned(t, providerSection(t, "", "")+"[provider.lxd]\nunix_socket_path = \"/x\"\n", "[provider.lxd]")
		},
	}
}

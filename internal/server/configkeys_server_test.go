package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// probeJWTSecret is a strong JWT secret for the probes.
const probeJWTSecret = "Wq8xZr2mKd7NpL5tYh9BcJ3sFg6AeU1oIu0yTrEwQaSdFgHjKlZxCvBnM2qW3e4V"

func defaultProbes() map[string]keyProbe {
	return map[string]keyProbe{
		"default.enable_webhook_management": func(t *testing.T) {
			off, _ := probeApp(t, "")
			on, _ := probeApp(t, "[default]\nenable_webhook_management = true\n")
			differs(t, "the REST API's webhook management", off.apiOptions(nil, nil).EnableWebhookManagement,
				on.apiOptions(nil, nil).EnableWebhookManagement)
		},
		"default.debug_server": func(t *testing.T) {
			pprofStatus := func(body string) int {
				a, _ := probeApp(t, body)
				return serveHTTP(a, http.MethodGet, "/debug/pprof/", adminToken(t, a, a.cfg.JWTAuth.Secret), nil).StatusCode
			}
			if got := pprofStatus(""); got != http.StatusNotFound {
				t.Errorf("without debug_server, /debug/pprof/ answers %d, want 404", got)
			}
			if got := pprofStatus("[default]\ndebug_server = true\n"); got != http.StatusOK {
				t.Errorf("with debug_server, /debug/pprof/ answers %d, want 200", got)
			}
		},
		"default.callback_url":        controllerURLProbe("callback_url", func(c garrison.Controller) string { return c.CallbackURL }),
		"default.metadata_url":        controllerURLProbe("metadata_url", func(c garrison.Controller) string { return c.MetadataURL }),
		"default.webhook_url":         controllerURLProbe("webhook_url", func(c garrison.Controller) string { return c.WebhookURL }),
		"default.log_file":            logFileProbe("default"),
		"default.enable_log_streamer": logStreamerProbe("default"),
	}
}

// controllerURLProbe: a legacy [default] URL is adopted into the controller settings.
func controllerURLProbe(key string, get func(garrison.Controller) string) keyProbe {
	return func(t *testing.T) {
		const url = "https://garrison.example.com/probe"
		setting := func(body string) string {
			a, _ := probeApp(t, body)
			c, err := a.store.Controller(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return get(c)
		}
		with := setting(fmt.Sprintf("[default]\n%s = %q\n", key, url))
		if with != url {
			t.Errorf("controller %s = %q, want %q", key, with, url)
		}
		differs(t, "the controller's "+key, setting(""), with)
	}
}

// logStreamerProbe: without enable_log_streamer the log stream answers an admin 400 "log
// streamer is disabled"; with it, the route takes the websocket (a plain GET gets the
// not-a-websocket 400 instead).
func logStreamerProbe(section string) keyProbe {
	return func(t *testing.T) {
		answer := func(body string) string {
			a, _ := probeApp(t, body)
			tok := adminToken(t, a, a.cfg.JWTAuth.Secret)
			if _, err := a.store.UpdateController(t.Context(), func(c *garrison.Controller) error {
				c.MetadataURL, c.CallbackURL = "http://127.0.0.1/api/v1/metadata", "http://127.0.0.1/api/v1/callbacks"
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			resp := serveHTTP(a, http.MethodGet, "/api/v1/ws/logs", tok, nil)
			var e apiv1.APIError
			_ = json.NewDecoder(resp.Body).Decode(&e)
			return fmt.Sprintf("%d %s", resp.StatusCode, e.Details)
		}
		off := answer("")
		if off != "400 log streamer is disabled" {
			t.Errorf("log stream without the streamer: %q", off)
		}
		differs(t, "the answer of /api/v1/ws/logs", off, answer(fmt.Sprintf("[%s]\nenable_log_streamer = true\n", section)))
	}
}

func loggingProbes() map[string]keyProbe {
	return map[string]keyProbe{
		"logging.log_file":            logFileProbe("logging"),
		"logging.enable_log_streamer": logStreamerProbe("logging"),
		"logging.access_log_level": func(t *testing.T) {
			accessLines := func(body string) int {
				a, logs := probeApp(t, body)
				serveHTTP(a, http.MethodGet, "/api/v1/controller-info", "", nil).Body.Close()
				return strings.Count(logs.String(), "msg=access_log")
			}
			if n := accessLines(""); n != 1 {
				t.Errorf("%d access lines at the default (info), want 1", n)
			}
			if n := accessLines("[logging]\naccess_log_level = \"debug\"\n"); n != 0 {
				t.Errorf("%d access lines at level debug with log_level info, want 0", n)
			}
		},
		"logging.log_format": func(t *testing.T) {
			out := logOutput(t, "[logging]\nlog_format = \"json\"\n", func(l *slog.Logger) { l.Info("probe") })
			var rec map[string]any
			if err := json.Unmarshal([]byte(out), &rec); err != nil || rec["msg"] != "probe" {
				t.Errorf("json log line %q: %v", out, err)
			}
			differs(t, "the log line", logOutput(t, "", func(l *slog.Logger) { l.Info("probe") }), out)
		},
		"logging.log_level": func(t *testing.T) {
			debug := func(l *slog.Logger) { l.Debug("probe") }
			if out := logOutput(t, "", debug); out != "" {
				t.Errorf("debug record logged at the default level: %q", out)
			}
			if out := logOutput(t, "[logging]\nlog_level = \"debug\"\n", debug); !strings.Contains(out, "msg=probe") {
				t.Errorf("debug record not logged at level debug: %q", out)
			}
		},
		"logging.log_source": func(t *testing.T) {
			info := func(l *slog.Logger) { l.Info("probe") }
			if out := logOutput(t, "[logging]\nlog_source = true\n", info); !strings.Contains(out, "source=") {
				t.Errorf("no source in %q", out)
			}
			if out := logOutput(t, "", info); strings.Contains(out, "source=") {
				t.Errorf("source without log_source: %q", out)
			}
		},
	}
}

// logOutput builds the server's logger from a config file with body, logs with fn and
// returns what reached stderr and the log file.
func logOutput(t *testing.T, body string, fn func(*slog.Logger)) string {
	t.Helper()
	cfg := mustConfig(t, body)
	var stderr bytes.Buffer
	logger, file, err := newLogger(cfg.Logging, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	fn(logger)
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
	out := stderr.String()
	if cfg.Logging.File != "" {
		b, err := os.ReadFile(cfg.Logging.File)
		if err != nil {
			t.Fatal(err)
		}
		out += "file:" + string(b)
	}
	return out
}

// logFileProbe: with log_file in section, records go to that file, not to stderr.
func logFileProbe(section string) keyProbe {
	return func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "garrison.log")
		info := func(l *slog.Logger) { l.Info("probe") }
		out := logOutput(t, fmt.Sprintf("[%s]\nlog_file = %q\n", section, path), info)
		if !strings.HasPrefix(out, "file:") || !strings.Contains(out, "msg=probe") {
			t.Errorf("with log_file, stderr and file got %q", out)
		}
		differs(t, "where records go", logOutput(t, "", info), out)
	}
}

func metricsAndJWTProbes() map[string]keyProbe {
	metricsStatus := func(t *testing.T, body string) int {
		a, _ := probeApp(t, body)
		return serveHTTP(a, http.MethodGet, "/metrics", "", nil).StatusCode
	}
	return map[string]keyProbe{
		"metrics.enable": func(t *testing.T) {
			differs(t, "the answer of /metrics", metricsStatus(t, ""), metricsStatus(t, "[metrics]\nenable = false\n"))
			if got := metricsStatus(t, "[metrics]\nenable = false\n"); got != http.StatusNotFound {
				t.Errorf("disabled /metrics answers %d, want 404", got)
			}
		},
		"metrics.disable_auth": func(t *testing.T) {
			if got := metricsStatus(t, ""); got != http.StatusUnauthorized {
				t.Errorf("/metrics without a token answers %d, want 401", got)
			}
			if got := metricsStatus(t, "[metrics]\ndisable_auth = true\n"); got != http.StatusOK {
				t.Errorf("/metrics without auth answers %d, want 200", got)
			}
		},
		"metrics.period": func(t *testing.T) {
			for body, want := range map[string]time.Duration{"": 60 * time.Second, "[metrics]\nperiod = \"30s\"\n": 30 * time.Second,
				"[metrics]\nperiod = \"0s\"\n": 60 * time.Second} {
				if got := mustConfig(t, body).Metrics.Period; got != want {
					t.Errorf("%q: period %v, want %v", body, got, want)
				}
			}
			refused(t, "[metrics]\nperiod = \"-1s\"\n", "metrics.period")
		},
		"jwt_auth.secret": func(t *testing.T) {
			status := func(body string) int {
				a, _ := probeApp(t, body)
				return serveHTTP(a, http.MethodGet, "/api/v1/controller", adminToken(t, a, probeJWTSecret), nil).StatusCode
			}
			if got := status(fmt.Sprintf("[jwt_auth]\nsecret = %q\n", probeJWTSecret)); got != http.StatusOK {
				t.Errorf("a token signed with the configured secret: %d, want 200", got)
			}
			if got := status(""); got != http.StatusUnauthorized {
				t.Errorf("a token signed with another secret than the generated one: %d, want 401", got)
			}
		},
		"jwt_auth.time_to_live": func(t *testing.T) {
			ttl := func(body string) time.Duration {
				a, _ := probeApp(t, body)
				adminToken(t, a, a.cfg.JWTAuth.Secret)
				return loginTokenTTL(t, a)
			}
			if got := ttl("[jwt_auth]\ntime_to_live = \"48h\"\n"); got != 48*time.Hour {
				t.Errorf("login token lives %s, want 48h", got)
			}
			differs(t, "the login token's lifetime", ttl(""), ttl("[jwt_auth]\ntime_to_live = \"48h\"\n"))
		},
	}
}

// loginTokenTTL logs the admin in and returns the lifetime of the token it gets (its
// expiry from the time of the login, to the hour).
func loginTokenTTL(t *testing.T, a *Server) time.Duration {
	t.Helper()
	body, _ := json.Marshal(apiv1.PasswordLoginParams{Username: "admin", Password: probePassword})
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/api/v1/auth/login", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	before := time.Now()
	a.handler.ServeHTTP(rec, req)
	var resp apiv1.JWTResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("login: %d %s", rec.Code, rec.Body)
	}
	parts := strings.Split(resp.Token, ".")
	if len(parts) != 3 {
		t.Fatalf("login token %q is not a JWT", resp.Token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct{ Exp int64 }
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return time.Unix(claims.Exp, 0).Sub(before).Round(time.Hour)
}

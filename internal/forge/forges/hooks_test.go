package forges

import (
	"errors"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/httpapi"
)

// hookReq is the request the API builds for controller "ctrl" and webhook URL
// http://127.0.0.1:1/webhooks.
func hookReq(insecure bool) httpapi.WebhookRequest {
	return httpapi.WebhookRequest{URL: "http://127.0.0.1:1/webhooks/ctrl", BaseURL: "http://127.0.0.1:1/webhooks",
		ControllerID: "ctrl", InsecureSSL: insecure}
}

// TestWebhookInstallRules checks WH-2 and WH-3 against the simulator: the hook is created
// with insecure_ssl as asked and pinged; a second install, or one where another hook
// already names this controller's id or host, is a conflict and creates nothing.
func TestWebhookInstallRules(t *testing.T) {
	tests := []struct {
		name     string
		existing string // URL of a hook installed by hand first; "" for none
		wantErr  string // "" for success
	}{
		{"fresh", "", ""},
		{"unrelated hook", "https://ci.example.com/hook", ""},
		{"same URL", "http://127.0.0.1:1/webhooks/ctrl", "hook already installed"},
		{"controller id elsewhere", "https://proxy.example.com/x/CTRL", "controller ID or hostname"},
		{"same host", "http://127.0.0.1:1/other", "controller ID or hostname"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newHubEnv(t, Options{})
			before := 0
			if tc.existing != "" {
				if _, err := e.sim.AddHook("repos/acme/app", tc.existing, "x", garrison.GitHub); err != nil {
					t.Fatal(err)
				}
				before = 1
			}
			info, err := e.hub.InstallWebhook(t.Context(), e.repo, hookReq(true))
			if tc.wantErr != "" {
				if !errors.Is(err, garrison.ErrConflict) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("install: %v, want a conflict saying %q", err, tc.wantErr)
				}
				if n := len(e.sim.Hooks()); n != before {
					t.Fatalf("%d hooks after a refused install, want %d", n, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.URL != hookReq(true).URL || !info.InsecureSSL || !info.Active {
				t.Fatalf("hook info %+v", info)
			}
			hooks := e.sim.Hooks()
			got := hooks[len(hooks)-1]
			if got.Config["insecure_ssl"] != "1" || got.Config["content_type"] != "json" {
				t.Fatalf("hook config %v, want insecure_ssl 1 and content_type json", got.Config)
			}
			if n := e.calls("POST /repos/{owner}/{repo}/hooks/{id}/pings"); n != 1 {
				t.Fatalf("%d pings after install, want 1", n)
			}
		})
	}
}

// TestWebhookShowAndUninstallRules checks WH-4 and WH-5: show finds the controller hook
// (case and trailing slash ignored), else the base-URL hook; uninstall removes the
// controller hook, refuses to remove a base-URL hook, and succeeds when there is none.
func TestWebhookShowAndUninstallRules(t *testing.T) {
	tests := []struct {
		name         string
		existing     string
		showFound    bool
		uninstallErr string // "" for success
		hooksAfter   int
	}{
		{"none", "", false, "", 0},
		{"controller hook", "HTTP://127.0.0.1:1/webhooks/ctrl/", true, "", 0},
		{"base hook", "http://127.0.0.1:1/webhooks", true, "base hook found (http://127.0.0.1:1/webhooks) and must be deleted manually", 1},
		{"unrelated", "https://ci.example.com/hook", false, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newHubEnv(t, Options{})
			if tc.existing != "" {
				if _, err := e.sim.AddHook("repos/acme/app", tc.existing, "x", garrison.GitHub); err != nil {
					t.Fatal(err)
				}
			}
			info, err := e.hub.WebhookInfo(t.Context(), e.repo, hookReq(false))
			switch {
			case tc.showFound && (err != nil || info.URL != tc.existing):
				t.Fatalf("show: %+v, %v; want the hook %s", info, err, tc.existing)
			case !tc.showFound && !errors.Is(err, garrison.ErrNotFound):
				t.Fatalf("show: %+v, %v; want not found", info, err)
			}
			err = e.hub.UninstallWebhook(t.Context(), e.repo, hookReq(false))
			if tc.uninstallErr == "" && err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if tc.uninstallErr != "" && (!errors.Is(err, garrison.ErrInvalid) || garrison.MessageOf(err) != tc.uninstallErr) {
				t.Fatalf("uninstall: %v, want invalid %q", err, tc.uninstallErr)
			}
			if n := len(e.sim.Hooks()); n != tc.hooksAfter {
				t.Fatalf("%d hooks after uninstall, want %d", n, tc.hooksAfter)
			}
		})
	}
}

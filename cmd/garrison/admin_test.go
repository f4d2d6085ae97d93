package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestPasswordResetRevokesMetricsToken: a metrics token issued through the REST API
// stops working once `garrison admin password-reset` has run, as every other token does.
func TestPasswordResetRevokesMetricsToken(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GARRISON_CONFIG_DIR", filepath.Join(dir, "client"))
	data := filepath.Join(dir, "data")
	addr := freeAddr(t)
	srv := startServer(t, addr, "--data-dir", data)
	runCLI(t, "init", "--name", "local", "--url", srv.url, "--username", "admin",
		"--email", "admin@example.com", "--password", testPassword)
	token := strings.TrimSpace(runCLI(t, "metrics-token", "create"))
	scrape := func(url string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "GET", url+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := scrape(srv.url); got != http.StatusOK {
		t.Fatalf("scrape with a fresh metrics token: %d", got)
	}

	srv.stop()
	t.Setenv("GARRISON_PASSWORD", "")
	runCLI(t, "admin", "password-reset", "--data-dir", data, "--password", "another-long-passphrase-77%")
	srv = startServer(t, addr, "--data-dir", data)
	if got := scrape(srv.url); got != http.StatusUnauthorized {
		t.Fatalf("scrape with a metrics token issued before the password reset: %d, want 401", got)
	}
}

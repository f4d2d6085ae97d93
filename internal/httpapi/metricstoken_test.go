package httpapi_test

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/auth"
)

// TestMetricsTokenRevokedByPasswordReset: a password reset (new hash, generation bumped,
// as `garrison admin password-reset` does) revokes metrics tokens issued before it, and
// a token issued after it works.
func TestMetricsTokenRevokedByPasswordReset(t *testing.T) {
	h := newHarness(t, openSQLite)
	tok := h.ready()
	metricsToken := func(admin string) string {
		var j apiv1.JWTResponse
		h.expect(h.call("GET", api("/metrics-token"), admin, nil), 200, &j)
		return j.Token
	}
	before := metricsToken(tok)
	h.expect(h.call("GET", "/metrics", before, nil), 200, nil)

	ctx := t.Context()
	u, err := h.store.UserByName(ctx, adminUser)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := auth.HashPassword("a-new-long-passphrase-for-the-admin-31")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.UpdateUser(ctx, u.ID, func(u *garrison.User) error {
		u.PasswordHash = hash
		u.Generation++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.expectError(h.call("GET", "/metrics", before, nil), 401, "Authentication failed", "")

	var fresh apiv1.JWTResponse
	h.expect(h.call("POST", api("/auth/login"), "", apiv1.PasswordLoginParams{
		Username: adminUser, Password: "a-new-long-passphrase-for-the-admin-31"}), 200, &fresh)
	after := metricsToken(fresh.Token)
	h.expect(h.call("GET", "/metrics", after, nil), 200, nil)

	// Disabling the admin stops every metrics token too.
	if _, err := h.store.UpdateUser(ctx, u.ID, func(u *garrison.User) error { u.Enabled = false; return nil }); err != nil {
		t.Fatal(err)
	}
	h.expectError(h.call("GET", "/metrics", after, nil), 401, "Authentication failed", "")
}

package apiclient

import (
	"context"
	"net/http"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// FirstRun creates the administrator (POST /first-run).
func (c *Client) FirstRun(ctx context.Context, p apiv1.NewUserParams) (apiv1.User, error) {
	return send[apiv1.User](ctx, c, http.MethodPost, "/first-run", p)
}

// Login exchanges a username and password for a token (POST /auth/login).
// It does not change the client's token; call SetToken for that.
func (c *Client) Login(ctx context.Context, p apiv1.PasswordLoginParams) (string, error) {
	r, err := send[apiv1.JWTResponse](ctx, c, http.MethodPost, "/auth/login", p)
	return r.Token, err
}

// GetController returns the controller information (GET /controller; no
// URLs check).
func (c *Client) GetController(ctx context.Context) (apiv1.ControllerInfo, error) {
	return get[apiv1.ControllerInfo](ctx, c, "/controller", nil)
}

// GetControllerInfo returns the controller information through the legacy
// route (GET /controller-info), which fails with 409 until URLs are set.
func (c *Client) GetControllerInfo(ctx context.Context) (apiv1.ControllerInfo, error) {
	return get[apiv1.ControllerInfo](ctx, c, "/controller-info", nil)
}

// UpdateController changes controller settings (PUT /controller).
func (c *Client) UpdateController(ctx context.Context, p apiv1.UpdateControllerParams) (apiv1.ControllerInfo, error) {
	return send[apiv1.ControllerInfo](ctx, c, http.MethodPut, "/controller", p)
}

// MetricsToken issues a token for scraping /metrics (GET /metrics-token).
func (c *Client) MetricsToken(ctx context.Context) (string, error) {
	r, err := get[apiv1.JWTResponse](ctx, c, "/metrics-token", nil)
	return r.Token, err
}

// ListProviders lists the configured providers (GET /providers).
func (c *Client) ListProviders(ctx context.Context) ([]apiv1.Provider, error) {
	return get[[]apiv1.Provider](ctx, c, "/providers", nil)
}

// ListJobs lists the recorded jobs (GET /jobs).
func (c *Client) ListJobs(ctx context.Context) ([]apiv1.Job, error) {
	return get[[]apiv1.Job](ctx, c, "/jobs", nil)
}

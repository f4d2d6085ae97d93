package scaleset

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v5"

	"github.com/garrison-ci/garrison"
)

// tokenSource gives the GitHub API token that asks for registration tokens: the PAT, or
// an installation token of the GitHub App (cached and renewed by ghinstallation).
type tokenSource interface {
	Token(ctx context.Context) (string, error)
}

type patSource string

func (p patSource) Token(context.Context) (string, error) { return string(p), nil }

func newTokenSource(tr http.RoundTripper, c garrison.Credentials, apiBase string) (tokenSource, error) {
	switch c.AuthType {
	case garrison.AuthPAT, "":
		if c.PAT == "" {
			return nil, garrison.Errorf(garrison.EInvalid, "scaleset: credentials %q have no token", c.Name)
		}
		return patSource(c.PAT), nil
	case garrison.AuthApp:
		itr, err := ghinstallation.New(tr, c.AppID, c.InstallationID, c.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("scaleset: app credentials %q: %w: %w", c.Name, garrison.ErrInvalid, err)
		}
		itr.BaseURL = apiBase
		return itr, nil
	}
	return nil, garrison.Errorf(garrison.EInvalid, "scaleset: unknown auth type %q", c.AuthType)
}

// adminRenewBefore is how long before its expiry the admin token is renewed, as the
// reference client does.
const adminRenewBefore = 60 * time.Second

// admin returns the Actions service base URL and a valid admin token, doing the bootstrap
// of spec §8.1 when there is none or it expires within a minute. Concurrent callers wait
// for one bootstrap.
func (c *Client) admin(ctx context.Context) (serviceURL, token string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.adminToken != "" && c.now().Add(adminRenewBefore).Before(c.adminExp) {
		return c.serviceURL, c.adminToken, nil
	}
	reg, err := c.registrationToken(ctx)
	if err != nil {
		return "", "", err
	}
	conn, err := c.runnerRegistration(ctx, reg)
	if err != nil {
		return "", "", err
	}
	exp, err := jwtExpiry(conn.Token)
	if err != nil {
		return "", "", fmt.Errorf("scaleset: runner-registration: admin token: %w: %w", garrison.ErrUnprocessable, err)
	}
	c.serviceURL, c.adminToken, c.adminExp = conn.URL, conn.Token, exp
	c.log.Debug("scaleset: admin token renewed", "service", conn.URL, "expires", exp)
	return c.serviceURL, c.adminToken, nil
}

// forgetAdmin drops the admin token after the service refused it, so the next call
// bootstraps again.
func (c *Client) forgetAdmin(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.adminToken == token {
		c.adminToken, c.adminExp = "", time.Time{}
	}
}

// registrationToken asks the GitHub API for a runner registration token (exactly 201).
func (c *Client) registrationToken(ctx context.Context) (string, error) {
	tok, err := c.creds.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("scaleset: installation token: %w: %w", garrison.ErrUnauthorized, err)
	}
	var out struct {
		Token string `json:"token"`
	}
	req := request{method: http.MethodPost, url: c.apiBase + registrationPath(c.entity), auth: "Bearer " + tok,
		want: http.StatusCreated, out: &out, op: "registration token"}
	req.header = map[string]string{"Accept": "application/vnd.github+json"}
	if err := c.send(ctx, c.http, req); err != nil {
		return "", err
	}
	if out.Token == "" {
		return "", garrison.Errorf(garrison.EUnprocessable, "scaleset: registration token: the answer holds no token")
	}
	return out.Token, nil
}

func registrationPath(e garrison.Entity) string {
	const tail = "/actions/runners/registration-token"
	switch e.Type {
	case garrison.Repository:
		return "/repos/" + url.PathEscape(e.Owner) + "/" + url.PathEscape(e.Name) + tail
	case garrison.Enterprise:
		return "/enterprises/" + url.PathEscape(e.Name) + tail
	}
	return "/orgs/" + url.PathEscape(e.Name) + tail
}

// adminConnection is the answer of runner-registration.
type adminConnection struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// runnerRegistration exchanges a registration token for the service URL and admin token.
func (c *Client) runnerRegistration(ctx context.Context, regToken string) (adminConnection, error) {
	var conn adminConnection
	body := map[string]string{"url": c.configURL, "runner_event": "register"}
	req := request{method: http.MethodPost, url: c.apiBase + "/actions/runner-registration", auth: "RemoteAuth " + regToken,
		body: body, out: &conn, op: "runner-registration", anyOK: true}
	if err := c.send(ctx, c.register, req); err != nil {
		return adminConnection{}, err
	}
	if conn.URL == "" || conn.Token == "" {
		return adminConnection{}, garrison.Errorf(garrison.EUnprocessable, "scaleset: runner-registration: the answer lacks the service URL or token")
	}
	if !garrison.ValidURL(conn.URL) {
		return adminConnection{}, garrison.Errorf(garrison.EUnprocessable, "scaleset: runner-registration: invalid service URL %q", conn.URL)
	}
	return conn, nil
}

// jwtExpiry reads the exp claim of a JWT without verifying it (the service signs it; the
// client only needs to know when to renew).
func jwtExpiry(token string) (time.Time, error) {
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err != nil {
		return time.Time{}, err
	}
	if claims.ExpiresAt == nil {
		return time.Time{}, fmt.Errorf("the token has no exp claim")
	}
	return claims.ExpiresAt.Time, nil
}

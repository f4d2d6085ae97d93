// Package gitea is garrison's client for Gitea 1.24 and later (plain net/http and
// encoding/json). Gitea runners register with a registration token; there is no JIT API:
// CreateJITConfig answers an error wrapping garrison.ErrJITUnsupported. The client has
// the GitHub client's method set and answers the domain's types (garrison.Runner,
// garrison.Hook; runner downloads in the provider wire shape).
//
// Scopes: a repository or organization garrison.Entity, or a forge instance (a
// garrison.ForgeInstance entity, or Instance, the zero Entity) for instance-wide ("admin")
// runners, tokens and hooks. Failures wrap a *garrison.Error
// (404 → ENotFound, 401/403 → EUnauthorized, 409 → EConflict, 422 → EUnprocessable, 400 →
// EInvalid) with Gitea's message; an answer that does not decode, or a listing longer
// than maxPages pages, is EUnprocessable.
package gitea

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// Instance is the scope of instance-wide runners, tokens and hooks.
var Instance = garrison.Entity{}

// Options tune a Client.
type Options struct {
	Transport http.RoundTripper // default: a clone of http.DefaultTransport
	Logger    *slog.Logger
	// DownloadsTTL is how long the runner download list is reused (default 30 min).
	DownloadsTTL time.Duration
	// Now is the clock of the download cache (default time.Now).
	Now func() time.Time
}

// Client talks to one Gitea server with one token. It is safe for concurrent use.
type Client struct {
	api      string // .../api/v1
	toolsURL string // the runner releases list (Endpoint.ToolsMetadataURL)
	token    string
	http     *http.Client
	log      *slog.Logger
	ttl      time.Duration
	now      func() time.Time

	mu          sync.Mutex // guards downloads and downloadsAt
	downloads   []provider.RunnerApplicationDownload
	downloadsAt time.Time
}

// New returns a client for the endpoint (APIBaseURL, else BaseURL; "/api/v1" is appended
// when missing) and PAT credentials. Runner downloads come from the endpoint's
// ToolsMetadataURL (default garrison.DefaultGiteaToolsURL).
func New(ep garrison.Endpoint, cred garrison.Credentials, opts Options) (*Client, error) {
	if cred.PAT == "" {
		return nil, garrison.Errorf(garrison.EInvalid, "gitea: credentials %q have no token", cred.Name)
	}
	base := ep.APIBaseURL
	if base == "" {
		base = ep.BaseURL
	}
	if !garrison.ValidURL(base) {
		return nil, garrison.Errorf(garrison.EInvalid, "gitea: endpoint %q has no valid URL", ep.Name)
	}
	base = strings.TrimRight(base, "/")
	if !strings.HasSuffix(base, "/api/v1") {
		base += "/api/v1"
	}
	rt, err := transport(opts.Transport, ep.CACertBundle)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.DownloadsTTL <= 0 {
		opts.DownloadsTTL = 30 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	tools := ep.ToolsMetadataURL
	if tools == "" {
		tools = garrison.DefaultGiteaToolsURL
	}
	return &Client{api: base, toolsURL: tools, token: cred.PAT, http: &http.Client{Transport: rt}, log: opts.Logger,
		ttl: opts.DownloadsTTL, now: opts.Now}, nil
}

func transport(rt http.RoundTripper, ca []byte) (http.RoundTripper, error) {
	if rt == nil {
		rt = http.DefaultTransport.(*http.Transport).Clone()
	}
	if len(ca) == 0 {
		return rt, nil
	}
	ht, ok := rt.(*http.Transport)
	if !ok {
		return nil, garrison.Errorf(garrison.EInvalid, "gitea: a CA bundle needs an *http.Transport base")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, garrison.Errorf(garrison.EInvalid, "gitea: the endpoint CA bundle holds no PEM certificate")
	}
	ht = ht.Clone()
	if ht.TLSClientConfig == nil {
		ht.TLSClientConfig = &tls.Config{}
	}
	ht.TLSClientConfig.RootCAs = pool
	return ht, nil
}

// scopeName names a scope in messages.
func scopeName(e garrison.Entity) string {
	if e.Type == "" {
		return "the instance"
	}
	return e.FullName()
}

// scopePath maps an entity to its API path prefix.
func scopePath(e garrison.Entity) (string, error) {
	switch e.Type {
	case garrison.Repository:
		return "/repos/" + e.Owner + "/" + e.Name, nil
	case garrison.Organization:
		return "/orgs/" + e.Name, nil
	case "", garrison.ForgeInstance:
		return "/admin", nil
	}
	return "", garrison.Errorf(garrison.EInvalid, "gitea: %s entities are not supported", e.Type)
}

// do sends a request and decodes a JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, in, out any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.api+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "token "+c.token)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("gitea: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("gitea: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return resp, apiError(method, path, resp.StatusCode, b)
	}
	if out != nil && len(b) > 0 {
		if err := decode(b, out); err != nil {
			return resp, fmt.Errorf("gitea: %s %s: %w", method, path, err)
		}
	}
	return resp, nil
}

// errMalformed classifies an answer garrison cannot read: the forge said something, but
// not what its API documents.
var errMalformed = &garrison.Error{Code: garrison.EUnprocessable, Message: "the forge's answer is malformed"}

// decode decodes a JSON answer into out; a malformed one wraps errMalformed (and the
// JSON error).
func decode(b []byte, out any) error {
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%w: %w", errMalformed, err)
	}
	return nil
}

func apiError(method, path string, status int, body []byte) error {
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &e)
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	code := garrison.EInternal
	switch status {
	case http.StatusNotFound:
		code = garrison.ENotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		code = garrison.EUnauthorized
	case http.StatusConflict:
		code = garrison.EConflict
	case http.StatusUnprocessableEntity:
		code = garrison.EUnprocessable
	case http.StatusBadRequest:
		code = garrison.EInvalid
	}
	return fmt.Errorf("gitea: %s %s: %d: %w", method, path, status, &garrison.Error{Code: code, Message: e.Message})
}

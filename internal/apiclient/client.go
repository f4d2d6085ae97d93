package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// Timeout is the per-request time limit (spec G-7).
const Timeout = 30 * time.Second

// APIPrefix is the path of API v1 below the server URL.
const APIPrefix = "/api/v1"

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// Client calls one garrison (or GARM) server. It is safe for concurrent use;
// SetToken must not race with requests.
type Client struct {
	base  *url.URL // server URL with APIPrefix appended
	token string
	http  *http.Client
	debug io.Writer
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes the client send its requests through hc. The 30 s
// per-request limit still applies (through the request context).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithDebug logs one line per request (method, URL, status, duration) to w.
// Tokens and bodies are never logged.
func WithDebug(w io.Writer) Option {
	return func(c *Client) { c.debug = w }
}

// New returns a client for the server at serverURL (for example
// "https://garrison.example.com:9997"; the "/api/v1" prefix is appended)
// that authenticates with token. token may be empty (first-run, login).
func New(serverURL, token string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(serverURL))
	if err != nil {
		return nil, fmt.Errorf("invalid server URL %q: %w", serverURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid server URL %q: want http(s)://host[:port]", serverURL)
	}
	u.Path = strings.TrimRight(u.Path, "/") + APIPrefix
	u.RawPath = ""
	u.RawQuery, u.Fragment = "", ""
	c := &Client{base: u, token: token, http: &http.Client{Timeout: Timeout}}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Token returns the bearer token the client sends.
func (c *Client) Token() string { return c.token }

// SetToken replaces the bearer token (for example after Login).
func (c *Client) SetToken(token string) { c.token = token }

// BaseURL returns the API base URL (server URL + "/api/v1").
func (c *Client) BaseURL() string { return c.base.String() }

// Do sends one request and decodes a 2xx JSON answer into out (which may be
// nil to discard it). path is relative to the API base and must already be
// escaped (use PathEscape on its parameters); query values that are empty are
// dropped; body, when non-nil, is sent as JSON. Non-2xx answers are returned
// as *Error.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	// path is already escaped: parse the joined text rather than setting
	// u.Path, which would escape it again.
	u, err := url.Parse(c.base.String() + path)
	if err != nil {
		return fmt.Errorf("build %s %s request: %w", method, path, err)
	}
	u.RawQuery = encodeQuery(query)
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s %s request: %w", method, path, err)
		}
		rd = bytes.NewReader(buf)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("build %s %s request: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.logf("%s %s: %v", method, u.Redacted(), err)
		return fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	defer resp.Body.Close()
	c.logf("%s %s -> %d (%s)", method, u.Redacted(), resp.StatusCode, time.Since(start).Round(time.Millisecond))

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(resp, method, path)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read response: %w", method, path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode response: %w", method, path, err)
	}
	return nil
}

func (c *Client) logf(format string, args ...any) {
	if c.debug != nil {
		fmt.Fprintf(c.debug, "DEBUG "+format+"\n", args...)
	}
}

// decodeError builds an *Error from a non-2xx response.
func decodeError(resp *http.Response, method, path string) error {
	e := &Error{StatusCode: resp.StatusCode, Method: method, Path: path}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var body apiv1.APIError
	if jerr := json.Unmarshal(data, &body); jerr == nil {
		e.Code, e.Details = body.Error, body.Details
	} else if mt != "application/json" {
		// A non-JSON error (a proxy, or GARM's text/plain 401): keep its text.
		e.Details = strings.TrimSpace(string(data))
		if len(e.Details) > 200 {
			e.Details = e.Details[:200]
		}
	}
	return e
}

// encodeQuery encodes q in key order, leaving out empty values.
func encodeQuery(q url.Values) string {
	kept := url.Values{}
	for k, vs := range q {
		for _, v := range vs {
			if v != "" {
				kept.Add(k, v)
			}
		}
	}
	return kept.Encode()
}

// PathEscape escapes one path segment.
func PathEscape(s string) string { return url.PathEscape(s) }

// get, post, put and del are typed shorthands for Do.
func get[T any](ctx context.Context, c *Client, path string, query url.Values) (T, error) {
	var out T
	err := c.Do(ctx, http.MethodGet, path, query, nil, &out)
	return out, err
}

func send[T any](ctx context.Context, c *Client, method, path string, body any) (T, error) {
	var out T
	err := c.Do(ctx, method, path, nil, body, &out)
	return out, err
}

func del(ctx context.Context, c *Client, path string, query url.Values) error {
	return c.Do(ctx, http.MethodDelete, path, query, nil, nil)
}

// errEmptyID is returned when a method is called with an empty identifier.
var errEmptyID = errors.New("apiclient: empty identifier")

func seg(s string) (string, error) {
	if s == "" {
		return "", errEmptyID
	}
	return "/" + PathEscape(s), nil
}

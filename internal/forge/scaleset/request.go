package scaleset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/garrison-ci/garrison"
)

// apiVersion is the Actions service API version the reference client speaks.
const apiVersion = "6.0-preview"

// maxBody bounds a response body read into memory.
const maxBody = 8 << 20

// request is one HTTP call.
type request struct {
	op     string // for errors, e.g. "create session"
	method string
	url    string
	auth   string // Authorization header
	header map[string]string
	body   any // JSON-encoded when not nil
	want   int // the success status; 0 with anyOK
	anyOK  bool
	// accepted, when not nil, makes 202 (the long poll's "nothing") a success without a
	// body, and is set when it was the answer.
	accepted *bool
	out      any // decoded from a success body when not nil
	kind     callKind
}

// send performs req with hc and decodes the answer; an unsuccessful answer becomes a
// classified error.
func (c *Client) send(ctx context.Context, hc *retryablehttp.Client, r request) error {
	var raw any
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return fmt.Errorf("scaleset: %s: encode request: %w", r.op, err)
		}
		raw = b
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.method, r.url, raw)
	if err != nil {
		return garrison.Errorf(garrison.EInvalid, "scaleset: %s: %v", r.op, err)
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json; api-version="+apiVersion)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.auth != "" {
		req.Header.Set("Authorization", r.auth)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return unreachable(r.op, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return unreachable(r.op, err)
	}
	body = trimBOM(body)
	switch {
	case r.accepted != nil && resp.StatusCode == http.StatusAccepted:
		*r.accepted = true
		return nil
	case resp.StatusCode == r.want || (r.anyOK && resp.StatusCode/100 == 2):
	default:
		return classify(r.op, r.kind, newAPIError(req.Request, resp, body), c.now())
	}
	if r.out == nil {
		return nil
	}
	if err := json.Unmarshal(body, r.out); err != nil {
		return fmt.Errorf("scaleset: %s: decode answer: %w: %w", r.op, garrison.ErrUnprocessable, err)
	}
	return nil
}

// unreachable classifies a transport failure (after the retries) as EUnavailable, unless
// the caller's context ended.
func unreachable(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("scaleset: %s: %w", op, err)
	}
	return fmt.Errorf("scaleset: %s: %w: %w", op, garrison.ErrUnavailable, err)
}

// trimBOM drops a leading UTF-8 byte order mark, which the service may send.
func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) }

// parseException reads a {"typeName", "message"} error body; text/plain or other bodies
// are not exceptions.
func parseException(contentType string, body []byte) (exceptionBody, bool) {
	var ex exceptionBody
	if len(body) == 0 || bytes.Contains([]byte(contentType), []byte("text/plain")) {
		return ex, false
	}
	if err := json.Unmarshal(body, &ex); err != nil || (ex.TypeName == "" && ex.Message == "") {
		return exceptionBody{}, false
	}
	return ex, true
}

// serviceURL joins the service base URL and a path, and adds api-version.
func serviceURL(base, path string, query url.Values) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u = u.JoinPath(path)
	q := u.Query()
	for k, vs := range query {
		q[k] = vs
	}
	if q.Get("api-version") == "" {
		q.Set("api-version", apiVersion)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// adminCall sends a call to the Actions service with the admin token. When the service
// refuses the token (401), the token is dropped, renewed and the call sent once more.
func (c *Client) adminCall(ctx context.Context, r request, path string, query url.Values) error {
	for attempt := 0; ; attempt++ {
		base, token, err := c.admin(ctx)
		if err != nil {
			return err
		}
		r.url, err = serviceURL(base, path, query)
		if err != nil {
			return garrison.Errorf(garrison.EUnprocessable, "scaleset: %s: service URL %q: %v", r.op, base, err)
		}
		r.auth = "Bearer " + token
		err = c.send(ctx, c.http, r)
		var ae *APIError
		if attempt == 0 && errors.As(err, &ae) && ae.Status == http.StatusUnauthorized {
			c.forgetAdmin(token)
			continue
		}
		return err
	}
}

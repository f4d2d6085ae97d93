package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

func objectPath(id uint) string { return "/objects/" + strconv.FormatUint(uint64(id), 10) }

// ListObjects returns one page of the object store (GET /objects?page=&pageSize=&tags=).
func (c *Client) ListObjects(ctx context.Context, page, pageSize int, tags []string) (apiv1.FileObjectPage, error) {
	q := url.Values{"page": {strconv.Itoa(page)}, "pageSize": {strconv.Itoa(pageSize)}, "tags": {strings.Join(tags, ",")}}
	return get[apiv1.FileObjectPage](ctx, c, "/objects", q)
}

// GetObject returns an object's catalogue entry (GET /objects/{id}).
func (c *Client) GetObject(ctx context.Context, id uint) (apiv1.FileObject, error) {
	return get[apiv1.FileObject](ctx, c, objectPath(id), nil)
}

// UpdateObject changes an object's name, description or tags (PUT /objects/{id}).
func (c *Client) UpdateObject(ctx context.Context, id uint, p apiv1.UpdateFileObjectParams) (apiv1.FileObject, error) {
	return send[apiv1.FileObject](ctx, c, http.MethodPut, objectPath(id), p)
}

// DeleteObject removes an object (DELETE /objects/{id}).
func (c *Client) DeleteObject(ctx context.Context, id uint) error {
	return del(ctx, c, objectPath(id), nil)
}

// UploadObject streams size bytes of body as a new object (POST /objects). Only ctx
// bounds it: a large file may take longer than the client's usual timeout.
func (c *Client) UploadObject(ctx context.Context, name, description string, tags []string, body io.Reader, size int64) (apiv1.FileObject, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+"/objects/", body)
	if err != nil {
		return apiv1.FileObject{}, err
	}
	req.ContentLength = size
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-File-Name", name)
	if description != "" {
		req.Header.Set("X-File-Description", description)
	}
	if len(tags) > 0 {
		req.Header.Set("X-Tags", strings.Join(tags, ","))
	}
	var out apiv1.FileObject
	err = c.stream(req, func(resp *http.Response) error { return decodeJSONBody(resp, &out) })
	return out, err
}

// DownloadObject streams an object's content to w (GET /objects/{id}/download) and
// returns the file name the server gives.
func (c *Client) DownloadObject(ctx context.Context, id uint, w io.Writer) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.String()+objectPath(id)+"/download", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	var name string
	err = c.stream(req, func(resp *http.Response) error {
		if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
			name = params["filename"]
		}
		_, err := io.Copy(w, resp.Body)
		return err
	})
	return name, err
}

// stream sends req and hands a 2xx answer to use; other answers are *Error.
func (c *Client) stream(req *http.Request, use func(*http.Response) error) error {
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	c.logf("%s %s -> %d", req.Method, req.URL.Redacted(), resp.StatusCode)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(resp, req.Method, strings.TrimPrefix(req.URL.Path, c.base.Path))
	}
	return use(resp)
}

// decodeJSONBody decodes a JSON answer of at most 1 MiB into out.
func decodeJSONBody(resp *http.Response, out any) error {
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out)
}

package apiclient

import (
	"context"
	"net/http"
	"strconv"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

func proxyPath(id uint) string { return "/proxies/" + strconv.FormatUint(uint64(id), 10) }

// ListProxyObjects lists the proxies with every field (GET /proxies).
func (c *Client) ListProxyObjects(ctx context.Context) ([]apiv1.Proxy, error) {
	return get[[]apiv1.Proxy](ctx, c, "/proxies", nil)
}

// CreateProxy adds a proxy (POST /proxies).
func (c *Client) CreateProxy(ctx context.Context, p apiv1.CreateProxyParams) (apiv1.Proxy, error) {
	return send[apiv1.Proxy](ctx, c, http.MethodPost, "/proxies", p)
}

// GetProxy returns a proxy (GET /proxies/{id}).
func (c *Client) GetProxy(ctx context.Context, id uint) (apiv1.Proxy, error) {
	return get[apiv1.Proxy](ctx, c, proxyPath(id), nil)
}

// UpdateProxy changes a proxy (PUT /proxies/{id}); nil fields are not sent.
func (c *Client) UpdateProxy(ctx context.Context, id uint, p apiv1.UpdateProxyParams) (apiv1.Proxy, error) {
	return send[apiv1.Proxy](ctx, c, http.MethodPut, proxyPath(id), p)
}

// DeleteProxy removes a proxy (DELETE /proxies/{id}).
func (c *Client) DeleteProxy(ctx context.Context, id uint) error {
	return del(ctx, c, proxyPath(id), nil)
}

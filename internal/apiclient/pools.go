package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// ListPools lists every pool (GET /pools).
func (c *Client) ListPools(ctx context.Context) ([]apiv1.Pool, error) {
	return get[[]apiv1.Pool](ctx, c, "/pools", nil)
}

// ListEntityPools lists the pools of an entity (GET /{kind}/{id}/pools).
func (c *Client) ListEntityPools(ctx context.Context, k EntityKind, id string) ([]apiv1.Pool, error) {
	path, err := k.path(id)
	if err != nil {
		return nil, err
	}
	return get[[]apiv1.Pool](ctx, c, path+"/pools", nil)
}

// CreatePool adds a pool to an entity (POST /{kind}/{id}/pools).
func (c *Client) CreatePool(ctx context.Context, k EntityKind, id string, p apiv1.CreatePoolParams) (apiv1.Pool, error) {
	path, err := k.path(id)
	if err != nil {
		return apiv1.Pool{}, err
	}
	return send[apiv1.Pool](ctx, c, http.MethodPost, path+"/pools", p)
}

// GetPool returns a pool with its instances (GET /pools/{id}).
func (c *Client) GetPool(ctx context.Context, id string) (apiv1.Pool, error) {
	s, err := seg(id)
	if err != nil {
		return apiv1.Pool{}, err
	}
	return get[apiv1.Pool](ctx, c, "/pools"+s, nil)
}

// PoolHealth reports whether a pool is healthy, degraded or stopped, and why (GET
// /pools/{id}/health, garrison's own).
func (c *Client) PoolHealth(ctx context.Context, id string) (apiv1.PoolHealth, error) {
	s, err := seg(id)
	if err != nil {
		return apiv1.PoolHealth{}, err
	}
	return get[apiv1.PoolHealth](ctx, c, "/pools"+s+"/health", nil)
}

// UpdatePool changes a pool (PUT /pools/{id}).
func (c *Client) UpdatePool(ctx context.Context, id string, p apiv1.UpdatePoolParams) (apiv1.Pool, error) {
	s, err := seg(id)
	if err != nil {
		return apiv1.Pool{}, err
	}
	return send[apiv1.Pool](ctx, c, http.MethodPut, "/pools"+s, p)
}

// DeletePool deletes a pool (DELETE /pools/{id}).
func (c *Client) DeletePool(ctx context.Context, id string) error {
	s, err := seg(id)
	if err != nil {
		return err
	}
	return del(ctx, c, "/pools"+s, nil)
}

// ListPoolInstances lists the runners of a pool (GET /pools/{id}/instances);
// with outdatedOnly, only those older than the pool's generation.
func (c *Client) ListPoolInstances(ctx context.Context, id string, outdatedOnly bool) ([]apiv1.Instance, error) {
	s, err := seg(id)
	if err != nil {
		return nil, err
	}
	var q url.Values
	if outdatedOnly {
		q = url.Values{"outdatedOnly": {"true"}}
	}
	return get[[]apiv1.Instance](ctx, c, "/pools"+s+"/instances", q)
}

// ListScaleSetInstances lists the runners of a scale set
// (GET /scalesets/{id}/instances).
func (c *Client) ListScaleSetInstances(ctx context.Context, id uint) ([]apiv1.Instance, error) {
	return get[[]apiv1.Instance](ctx, c, "/scalesets/"+strconv.FormatUint(uint64(id), 10)+"/instances", nil)
}

// ListInstances lists every runner (GET /instances).
func (c *Client) ListInstances(ctx context.Context) ([]apiv1.Instance, error) {
	return get[[]apiv1.Instance](ctx, c, "/instances", nil)
}

// GetInstance returns one runner (GET /instances/{name}).
func (c *Client) GetInstance(ctx context.Context, name string) (apiv1.Instance, error) {
	s, err := seg(name)
	if err != nil {
		return apiv1.Instance{}, err
	}
	return get[apiv1.Instance](ctx, c, "/instances"+s, nil)
}

// DeleteInstance asks for a runner's removal
// (DELETE /instances/{name}?bypassGHUnauthorized=&forceRemove=, both always sent).
func (c *Client) DeleteInstance(ctx context.Context, name string, forceRemove, bypassGHUnauthorized bool) error {
	s, err := seg(name)
	if err != nil {
		return err
	}
	q := url.Values{
		"forceRemove":          {strconv.FormatBool(forceRemove)},
		"bypassGHUnauthorized": {strconv.FormatBool(bypassGHUnauthorized)},
	}
	return del(ctx, c, "/instances"+s, q)
}

// NamedObject is the part of a runner install template or a proxy the
// client needs to turn a name into an id. Templates and proxies are outside
// the API subset garrison implements; only these keys are decoded.
type NamedObject struct {
	ID   uint   `json:"id"`
	Name string `json:"name"`
}

// ListTemplates lists runner install templates whose name contains
// partialName (GET /templates?partialName=).
func (c *Client) ListTemplates(ctx context.Context, partialName string) ([]NamedObject, error) {
	return get[[]NamedObject](ctx, c, "/templates", url.Values{"partialName": {partialName}})
}

// ListProxies lists the configured proxies (GET /proxies).
func (c *Client) ListProxies(ctx context.Context) ([]NamedObject, error) {
	return get[[]NamedObject](ctx, c, "/proxies", nil)
}

// RotateOutdatedRunners replaces the pool's idle runners made from an older pool
// definition (POST /pools/{id}/runners/rotate, a garrison extension) and returns how many
// were marked for replacement.
func (c *Client) RotateOutdatedRunners(ctx context.Context, id string) (int, error) {
	s, err := seg(id)
	if err != nil {
		return 0, err
	}
	out, err := send[apiv1.RotateRunnersResponse](ctx, c, "POST", "/pools"+s+"/runners/rotate", nil)
	return out.Rotated, err
}

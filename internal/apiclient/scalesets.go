package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

func scaleSetPath(id uint) string { return "/scalesets/" + strconv.FormatUint(uint64(id), 10) }

// ListScaleSets lists every scale set (GET /scalesets).
func (c *Client) ListScaleSets(ctx context.Context) ([]apiv1.ScaleSet, error) {
	return get[[]apiv1.ScaleSet](ctx, c, "/scalesets", nil)
}

// ListEntityScaleSets lists the scale sets of an entity (GET /{kind}/{id}/scalesets).
func (c *Client) ListEntityScaleSets(ctx context.Context, k EntityKind, id string) ([]apiv1.ScaleSet, error) {
	path, err := k.path(id)
	if err != nil {
		return nil, err
	}
	return get[[]apiv1.ScaleSet](ctx, c, path+"/scalesets", nil)
}

// CreateScaleSet adds a scale set to an entity (POST /{kind}/{id}/scalesets).
func (c *Client) CreateScaleSet(ctx context.Context, k EntityKind, id string, p apiv1.CreateScaleSetParams) (apiv1.ScaleSet, error) {
	path, err := k.path(id)
	if err != nil {
		return apiv1.ScaleSet{}, err
	}
	return send[apiv1.ScaleSet](ctx, c, http.MethodPost, path+"/scalesets", p)
}

// GetScaleSet returns a scale set with its runners (GET /scalesets/{id}).
func (c *Client) GetScaleSet(ctx context.Context, id uint) (apiv1.ScaleSet, error) {
	return get[apiv1.ScaleSet](ctx, c, scaleSetPath(id), nil)
}

// UpdateScaleSet changes a scale set (PUT /scalesets/{id}).
func (c *Client) UpdateScaleSet(ctx context.Context, id uint, p apiv1.UpdateScaleSetParams) (apiv1.ScaleSet, error) {
	return send[apiv1.ScaleSet](ctx, c, http.MethodPut, scaleSetPath(id), p)
}

// DeleteScaleSet deletes a scale set (DELETE /scalesets/{id}); it must be disabled and
// have no runners.
func (c *Client) DeleteScaleSet(ctx context.Context, id uint) error {
	return del(ctx, c, scaleSetPath(id), nil)
}

// ListScaleSetRunners lists the runners of a scale set (GET /scalesets/{id}/instances);
// with outdatedOnly, only those older than the scale set's generation.
func (c *Client) ListScaleSetRunners(ctx context.Context, id uint, outdatedOnly bool) ([]apiv1.Instance, error) {
	var q url.Values
	if outdatedOnly {
		q = url.Values{"outdatedOnly": {"true"}}
	}
	return get[[]apiv1.Instance](ctx, c, scaleSetPath(id)+"/instances", q)
}

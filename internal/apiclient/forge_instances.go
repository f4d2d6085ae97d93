package apiclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// ListForgeInstances lists forge instances (GET /forge-instances?endpoint=).
func (c *Client) ListForgeInstances(ctx context.Context, endpoint string) ([]apiv1.ForgeInstance, error) {
	return get[[]apiv1.ForgeInstance](ctx, c, "/forge-instances", url.Values{"endpoint": {endpoint}})
}

// CreateForgeInstance adds a forge instance (POST /forge-instances).
func (c *Client) CreateForgeInstance(ctx context.Context, p apiv1.CreateForgeInstanceParams) (apiv1.ForgeInstance, error) {
	return send[apiv1.ForgeInstance](ctx, c, http.MethodPost, "/forge-instances", p)
}

// GetForgeInstance returns a forge instance with its pools and events
// (GET /forge-instances/{id}).
func (c *Client) GetForgeInstance(ctx context.Context, id string) (apiv1.ForgeInstance, error) {
	path, err := ForgeInstances.path(id)
	if err != nil {
		return apiv1.ForgeInstance{}, err
	}
	return get[apiv1.ForgeInstance](ctx, c, path, nil)
}

// UpdateForgeInstance changes a forge instance (PUT /forge-instances/{id}).
func (c *Client) UpdateForgeInstance(ctx context.Context, id string, p apiv1.UpdateEntityParams) (apiv1.ForgeInstance, error) {
	path, err := ForgeInstances.path(id)
	if err != nil {
		return apiv1.ForgeInstance{}, err
	}
	return send[apiv1.ForgeInstance](ctx, c, http.MethodPut, path, p)
}

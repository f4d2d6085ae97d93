package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TemplateFilter narrows ListTemplatesFull; empty fields match everything.
type TemplateFilter struct {
	PartialName string
	OSType      string
	ForgeType   string
}

// ListTemplatesFull lists runner install templates, without their data
// (GET /templates?partialName=&osType=&forgeType=).
func (c *Client) ListTemplatesFull(ctx context.Context, f TemplateFilter) ([]apiv1.Template, error) {
	q := url.Values{}
	for k, v := range map[string]string{"partialName": f.PartialName, "osType": f.OSType, "forgeType": f.ForgeType} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return get[[]apiv1.Template](ctx, c, "/templates", q)
}

// GetTemplate returns a template with its data (GET /templates/{id}).
func (c *Client) GetTemplate(ctx context.Context, id uint) (apiv1.Template, error) {
	return get[apiv1.Template](ctx, c, fmt.Sprintf("/templates/%d", id), nil)
}

// CreateTemplate creates a user template (POST /templates).
func (c *Client) CreateTemplate(ctx context.Context, p apiv1.CreateTemplateParams) (apiv1.Template, error) {
	var out apiv1.Template
	err := c.Do(ctx, http.MethodPost, "/templates", nil, p, &out)
	return out, err
}

// UpdateTemplate changes a template (PUT /templates/{id}).
func (c *Client) UpdateTemplate(ctx context.Context, id uint, p apiv1.UpdateTemplateParams) (apiv1.Template, error) {
	var out apiv1.Template
	err := c.Do(ctx, http.MethodPut, fmt.Sprintf("/templates/%d", id), nil, p, &out)
	return out, err
}

// DeleteTemplate removes a template (DELETE /templates/{id}).
func (c *Client) DeleteTemplate(ctx context.Context, id uint) error {
	return del(ctx, c, fmt.Sprintf("/templates/%d", id), nil)
}

// RestoreTemplates puts garrison's built-in content back into system templates
// (POST /templates/restore).
func (c *Client) RestoreTemplates(ctx context.Context, r apiv1.RestoreTemplateRequest) error {
	return c.Do(ctx, http.MethodPost, "/templates/restore", nil, r, nil)
}

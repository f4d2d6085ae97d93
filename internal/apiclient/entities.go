package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// EntityKind selects the repositories, organizations or enterprises family
// of routes; its value is the path segment.
type EntityKind string

// The entity kinds.
const (
	Repositories  EntityKind = "repositories"
	Organizations EntityKind = "organizations"
	Enterprises   EntityKind = "enterprises"
	// ForgeInstances are whole Gitea servers (rest-api-2 §4).
	ForgeInstances EntityKind = "forge-instances"
)

// path returns "/{kind}/{id}".
func (k EntityKind) path(id string) (string, error) {
	switch k {
	case Repositories, Organizations, Enterprises, ForgeInstances:
	default:
		return "", fmt.Errorf("apiclient: unknown entity kind %q", string(k))
	}
	s, err := seg(id)
	if err != nil {
		return "", err
	}
	return "/" + string(k) + s, nil
}

// RepoFilter narrows ListRepositories; empty fields are not sent.
type RepoFilter struct {
	Owner, Name, Endpoint string
}

// EntityFilter narrows ListOrganizations and ListEnterprises; empty fields
// are not sent.
type EntityFilter struct {
	Name, Endpoint string
}

// ListRepositories lists repositories (GET /repositories?owner=&name=&endpoint=).
func (c *Client) ListRepositories(ctx context.Context, f RepoFilter) ([]apiv1.Repository, error) {
	q := url.Values{"owner": {f.Owner}, "name": {f.Name}, "endpoint": {f.Endpoint}}
	return get[[]apiv1.Repository](ctx, c, "/repositories", q)
}

// CreateRepository adds a repository (POST /repositories).
func (c *Client) CreateRepository(ctx context.Context, p apiv1.CreateRepoParams) (apiv1.Repository, error) {
	return send[apiv1.Repository](ctx, c, http.MethodPost, "/repositories", p)
}

// GetRepository returns a repository with its pools and events
// (GET /repositories/{id}).
func (c *Client) GetRepository(ctx context.Context, id string) (apiv1.Repository, error) {
	path, err := Repositories.path(id)
	if err != nil {
		return apiv1.Repository{}, err
	}
	return get[apiv1.Repository](ctx, c, path, nil)
}

// UpdateRepository changes a repository (PUT /repositories/{id}).
func (c *Client) UpdateRepository(ctx context.Context, id string, p apiv1.UpdateEntityParams) (apiv1.Repository, error) {
	path, err := Repositories.path(id)
	if err != nil {
		return apiv1.Repository{}, err
	}
	return send[apiv1.Repository](ctx, c, http.MethodPut, path, p)
}

// ListOrganizations lists organizations (GET /organizations?name=&endpoint=).
func (c *Client) ListOrganizations(ctx context.Context, f EntityFilter) ([]apiv1.Organization, error) {
	return c.listOrgs(ctx, Organizations, f)
}

// ListEnterprises lists enterprises (GET /enterprises?name=&endpoint=).
func (c *Client) ListEnterprises(ctx context.Context, f EntityFilter) ([]apiv1.Enterprise, error) {
	return c.listOrgs(ctx, Enterprises, f)
}

func (c *Client) listOrgs(ctx context.Context, k EntityKind, f EntityFilter) ([]apiv1.Organization, error) {
	q := url.Values{"name": {f.Name}, "endpoint": {f.Endpoint}}
	return get[[]apiv1.Organization](ctx, c, "/"+string(k), q)
}

// CreateOrganization adds an organization (POST /organizations).
func (c *Client) CreateOrganization(ctx context.Context, p apiv1.CreateOrgParams) (apiv1.Organization, error) {
	return send[apiv1.Organization](ctx, c, http.MethodPost, "/organizations", p)
}

// CreateEnterprise adds an enterprise (POST /enterprises). ForgeType must be
// empty.
func (c *Client) CreateEnterprise(ctx context.Context, p apiv1.CreateOrgParams) (apiv1.Enterprise, error) {
	return send[apiv1.Enterprise](ctx, c, http.MethodPost, "/enterprises", p)
}

// GetOrganization returns an organization (GET /organizations/{id}).
func (c *Client) GetOrganization(ctx context.Context, id string) (apiv1.Organization, error) {
	return c.getOrg(ctx, Organizations, id)
}

// GetEnterprise returns an enterprise (GET /enterprises/{id}).
func (c *Client) GetEnterprise(ctx context.Context, id string) (apiv1.Enterprise, error) {
	return c.getOrg(ctx, Enterprises, id)
}

func (c *Client) getOrg(ctx context.Context, k EntityKind, id string) (apiv1.Organization, error) {
	path, err := k.path(id)
	if err != nil {
		return apiv1.Organization{}, err
	}
	return get[apiv1.Organization](ctx, c, path, nil)
}

// UpdateOrganization changes an organization (PUT /organizations/{id}).
func (c *Client) UpdateOrganization(ctx context.Context, id string, p apiv1.UpdateEntityParams) (apiv1.Organization, error) {
	return c.updateOrg(ctx, Organizations, id, p)
}

// UpdateEnterprise changes an enterprise (PUT /enterprises/{id}).
func (c *Client) UpdateEnterprise(ctx context.Context, id string, p apiv1.UpdateEntityParams) (apiv1.Enterprise, error) {
	return c.updateOrg(ctx, Enterprises, id, p)
}

func (c *Client) updateOrg(ctx context.Context, k EntityKind, id string, p apiv1.UpdateEntityParams) (apiv1.Organization, error) {
	path, err := k.path(id)
	if err != nil {
		return apiv1.Organization{}, err
	}
	return send[apiv1.Organization](ctx, c, http.MethodPut, path, p)
}

// DeleteEntity deletes a repository or organization
// (DELETE /{kind}/{id}?keepWebhook=<bool>, the parameter always sent) or an
// enterprise (DELETE /enterprises/{id}; keepWebhook is ignored).
func (c *Client) DeleteEntity(ctx context.Context, k EntityKind, id string, keepWebhook bool) error {
	path, err := k.path(id)
	if err != nil {
		return err
	}
	var q url.Values
	if k != Enterprises {
		q = url.Values{"keepWebhook": {strconv.FormatBool(keepWebhook)}}
	}
	return del(ctx, c, path, q)
}

// InstallWebhook installs the controller's webhook on a repository or
// organization (POST /{kind}/{id}/webhook).
func (c *Client) InstallWebhook(ctx context.Context, k EntityKind, id string, p apiv1.InstallWebhookParams) (apiv1.HookInfo, error) {
	path, err := k.path(id)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	return send[apiv1.HookInfo](ctx, c, http.MethodPost, path+"/webhook", p)
}

// GetWebhook describes the installed webhook (GET /{kind}/{id}/webhook).
func (c *Client) GetWebhook(ctx context.Context, k EntityKind, id string) (apiv1.HookInfo, error) {
	path, err := k.path(id)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	return get[apiv1.HookInfo](ctx, c, path+"/webhook", nil)
}

// UninstallWebhook removes the controller's webhook (DELETE /{kind}/{id}/webhook).
func (c *Client) UninstallWebhook(ctx context.Context, k EntityKind, id string) error {
	path, err := k.path(id)
	if err != nil {
		return err
	}
	return del(ctx, c, path+"/webhook", nil)
}

// ListEntityInstances lists the runners of an entity (GET /{kind}/{id}/instances).
func (c *Client) ListEntityInstances(ctx context.Context, k EntityKind, id string) ([]apiv1.Instance, error) {
	path, err := k.path(id)
	if err != nil {
		return nil, err
	}
	return get[[]apiv1.Instance](ctx, c, path+"/instances", nil)
}

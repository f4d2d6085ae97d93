package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// Forge selects the GitHub or the Gitea family of endpoint and credentials
// routes.
type Forge string

// The forges.
const (
	GitHub Forge = "github"
	Gitea  Forge = "gitea"
)

func (f Forge) prefix() (string, error) {
	switch f {
	case GitHub, Gitea:
		return "/" + string(f), nil
	}
	return "", fmt.Errorf("apiclient: unknown forge %q", string(f))
}

// ListEndpoints lists the endpoints of a forge (GET /{forge}/endpoints).
func (c *Client) ListEndpoints(ctx context.Context, f Forge) ([]apiv1.ForgeEndpoint, error) {
	p, err := f.prefix()
	if err != nil {
		return nil, err
	}
	return get[[]apiv1.ForgeEndpoint](ctx, c, p+"/endpoints", nil)
}

// GetEndpoint returns one endpoint (GET /{forge}/endpoints/{name}).
func (c *Client) GetEndpoint(ctx context.Context, f Forge, name string) (apiv1.ForgeEndpoint, error) {
	path, err := endpointPath(f, name)
	if err != nil {
		return apiv1.ForgeEndpoint{}, err
	}
	return get[apiv1.ForgeEndpoint](ctx, c, path, nil)
}

// DeleteEndpoint deletes an endpoint (DELETE /{forge}/endpoints/{name}).
func (c *Client) DeleteEndpoint(ctx context.Context, f Forge, name string) error {
	path, err := endpointPath(f, name)
	if err != nil {
		return err
	}
	return del(ctx, c, path, nil)
}

// CreateGithubEndpoint creates a GitHub endpoint (POST /github/endpoints).
func (c *Client) CreateGithubEndpoint(ctx context.Context, p apiv1.CreateGithubEndpointParams) (apiv1.ForgeEndpoint, error) {
	return send[apiv1.ForgeEndpoint](ctx, c, http.MethodPost, "/github/endpoints", p)
}

// UpdateGithubEndpoint changes a GitHub endpoint (PUT /github/endpoints/{name}).
func (c *Client) UpdateGithubEndpoint(ctx context.Context, name string, p apiv1.UpdateGithubEndpointParams) (apiv1.ForgeEndpoint, error) {
	path, err := endpointPath(GitHub, name)
	if err != nil {
		return apiv1.ForgeEndpoint{}, err
	}
	return send[apiv1.ForgeEndpoint](ctx, c, http.MethodPut, path, p)
}

// CreateGiteaEndpoint creates a Gitea endpoint (POST /gitea/endpoints).
func (c *Client) CreateGiteaEndpoint(ctx context.Context, p apiv1.CreateGiteaEndpointParams) (apiv1.ForgeEndpoint, error) {
	return send[apiv1.ForgeEndpoint](ctx, c, http.MethodPost, "/gitea/endpoints", p)
}

// UpdateGiteaEndpoint changes a Gitea endpoint (PUT /gitea/endpoints/{name}).
func (c *Client) UpdateGiteaEndpoint(ctx context.Context, name string, p apiv1.UpdateGiteaEndpointParams) (apiv1.ForgeEndpoint, error) {
	path, err := endpointPath(Gitea, name)
	if err != nil {
		return apiv1.ForgeEndpoint{}, err
	}
	return send[apiv1.ForgeEndpoint](ctx, c, http.MethodPut, path, p)
}

func endpointPath(f Forge, name string) (string, error) {
	p, err := f.prefix()
	if err != nil {
		return "", err
	}
	s, err := seg(name)
	if err != nil {
		return "", err
	}
	return p + "/endpoints" + s, nil
}

// ListCredentials lists the credentials of a forge (GET /{forge}/credentials).
func (c *Client) ListCredentials(ctx context.Context, f Forge) ([]apiv1.ForgeCredentials, error) {
	p, err := f.prefix()
	if err != nil {
		return nil, err
	}
	return get[[]apiv1.ForgeCredentials](ctx, c, p+"/credentials", nil)
}

// ListLegacyCredentials lists the GitHub credentials through the legacy
// route (GET /credentials).
func (c *Client) ListLegacyCredentials(ctx context.Context) ([]apiv1.ForgeCredentials, error) {
	return get[[]apiv1.ForgeCredentials](ctx, c, "/credentials", nil)
}

// GetCredentials returns one set of credentials with the entities using them
// (GET /{forge}/credentials/{id}).
func (c *Client) GetCredentials(ctx context.Context, f Forge, id uint) (apiv1.ForgeCredentials, error) {
	path, err := credentialsPath(f, id)
	if err != nil {
		return apiv1.ForgeCredentials{}, err
	}
	return get[apiv1.ForgeCredentials](ctx, c, path, nil)
}

// CreateCredentials creates credentials (POST /{forge}/credentials).
func (c *Client) CreateCredentials(ctx context.Context, f Forge, p apiv1.CreateCredentialsParams) (apiv1.ForgeCredentials, error) {
	prefix, err := f.prefix()
	if err != nil {
		return apiv1.ForgeCredentials{}, err
	}
	return send[apiv1.ForgeCredentials](ctx, c, http.MethodPost, prefix+"/credentials", p)
}

// UpdateCredentials changes credentials (PUT /{forge}/credentials/{id}).
func (c *Client) UpdateCredentials(ctx context.Context, f Forge, id uint, p apiv1.UpdateCredentialsParams) (apiv1.ForgeCredentials, error) {
	path, err := credentialsPath(f, id)
	if err != nil {
		return apiv1.ForgeCredentials{}, err
	}
	return send[apiv1.ForgeCredentials](ctx, c, http.MethodPut, path, p)
}

// DeleteCredentials deletes credentials (DELETE /{forge}/credentials/{id}).
func (c *Client) DeleteCredentials(ctx context.Context, f Forge, id uint) error {
	path, err := credentialsPath(f, id)
	if err != nil {
		return err
	}
	return del(ctx, c, path, nil)
}

func credentialsPath(f Forge, id uint) (string, error) {
	p, err := f.prefix()
	if err != nil {
		return "", err
	}
	return p + "/credentials/" + strconv.FormatUint(uint64(id), 10), nil
}
